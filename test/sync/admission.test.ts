import { describe, expect, it } from 'vitest';
import { job, jobId, PRIORITY, specId } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';
import { Admission, Backlog } from '../../src/sync/admission.ts';
import { LazyQueuedJob, type QueuedJob } from '../../src/queue/types.ts';

const profile = (id: string) => job('fragranceProfile', { id }, PRIORITY.profile);
const reviews = (id: string, knownTotal: number | null = null) =>
  job('fragranceReviews', { id, knownTotal, knownCount: null }, PRIORITY.detail);

describe('Backlog', () => {
  it('gives back every job as it came (same id, kind, priority), lowest priority first, in order within one', () => {
    const b = new Backlog();
    const specs: JobSpec[] = [
      reviews('a'),
      profile('b'),
      job('fragrancesPage', { page: 3 }, PRIORITY.walk),
      reviews('c', 120), // a known total: kept as it is
      job('brandCatalogue', { slug: 'house' }, PRIORITY.entity),
      profile('d'),
      reviews('e'),
    ];
    for (const s of specs) b.add(s);
    expect(b.size).toBe(7);
    const out: JobSpec[] = [];
    let s: JobSpec | undefined;
    while ((s = b.take()) !== undefined) out.push(s);
    expect(b.size).toBe(0);
    const order = [2, 4, 1, 5, 0, 3, 6].map((i) => specs[i]!);
    expect(out).toEqual(order);
    expect(out.map(specId)).toEqual(order.map((o) => jobId(o.kind, o.payload)));
  });
});

describe('Admission', () => {
  const ended = (q: QueuedJob): QueuedJob => new LazyQueuedJob(q.runId, q.spec);

  it('hands the driver at most the window, the next by priority as each job ends', () => {
    const a = new Admission('run-1', 3);
    const first = a.add([1, 2, 3, 4, 5].map((i) => profile(`f${i}`)));
    expect(first.map((q) => q.spec.payload)).toEqual([{ id: 'f1' }, { id: 'f2' }, { id: 'f3' }]);
    expect(a.waiting).toBe(2);
    // A job that ended makes room; a walk owed meanwhile goes before the waiting profiles.
    const walk = job('notesPage', { page: 2 }, PRIORITY.walk);
    const next = a.add([walk], ended(first[0]!));
    expect(next.map((q) => q.spec)).toEqual([walk]);
    // An end reported twice frees one slot, not two; another run's job frees none.
    expect(a.add([], ended(first[0]!))).toEqual([]);
    expect(a.add([], new LazyQueuedJob('run-0', first[1]!.spec))).toEqual([]);
    const last = a.add([], ended(first[1]!));
    expect(last.map((q) => q.spec.payload)).toEqual([{ id: 'f4' }]);
    expect(last[0]!.runId).toBe('run-1');
    expect(a.waiting).toBe(1);
  });
});
