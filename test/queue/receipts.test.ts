import { describe, expect, test } from 'vitest';
import { job, PRIORITY } from '../../jobs/job-id.ts';
import { Receipts } from '../../src/queue/receipts.ts';
import type { JobOutcome, QueuedJob } from '../../src/queue/types.ts';
import { answeredCall as answer } from '../warehouse/fixtures.ts';

/** The owner handles a report once, and a job's final outcome once (src/queue/receipts.ts). */

const note: QueuedJob = { id: 'note-a', runId: 'run-a', spec: job('note', { slug: 'a' }, PRIORITY.entity) };
const done = (callId: string): JobOutcome => ({
  type: 'done',
  job: note,
  result: { items: [], progress: [], follow: [] },
  calls: [answer(callId, 200)],
});

describe('Receipts', () => {
  test('a report sent again under its id counts for its ledger rows only', () => {
    const r = new Receipts();
    const owed = () => true;
    expect(r.take(done('c1'), 'load-1', owed)).toEqual(done('c1'));
    expect(r.take(done('c1'), 'load-1', owed)).toEqual({
      type: 'ledger',
      runId: 'run-a',
      calls: [answer('c1', 200)],
    });
  });

  test('a second final outcome of a job no longer owed is one more attempt: its calls, not its results', () => {
    const r = new Receipts();
    expect(r.take(done('c2'), 'load-2', () => false)).toEqual({
      type: 'requeued',
      job: note,
      calls: [answer('c2', 200)],
    });
  });
});
