import { PRIORITY, specId } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';

/** The stages of a nightly, in order: each is let out once nothing of the one before is left. */
const STAGES = [PRIORITY.fresh, PRIORITY.signal, Number.POSITIVE_INFINITY];

/**
 * A nightly pays in stages: first the walks, the new items (complete) and the checks of
 * removed ones; then the other signals (similar lists a change made stale); then what the
 * freshness policy says is due. Priorities alone would not do it: a driver fills every free
 * slot at once (with BullMQ, every worker's), so later work would take the slots, and under
 * a cap the budget, while the list walk was still finding the day's new fragrances. A job a
 * signal owes sooner than the policy did (the missing fragrance's profile, held as a daily
 * refresh) leaves the held ones and goes with its stage; a job already let out is never let
 * out twice. A full sync has no gate (`off`).
 */
export class Gate {
  private stage = 0;
  /** Ids of the jobs let out and not ended: a job reported twice ends once. */
  private readonly outstanding = new Set<string>();
  private readonly sent = new Set<string>();
  private held = new Map<string, JobSpec>();

  constructor(private readonly off: boolean) {}

  private get open(): boolean {
    return this.stage === STAGES.length - 1;
  }

  /** The jobs to submit now; the rest is held. */
  pass(jobs: JobSpec[]): JobSpec[] {
    if (this.off) return jobs;
    const now: JobSpec[] = [];
    for (const j of jobs) {
      const id = specId(j);
      if (this.sent.has(id)) continue;
      const held = this.held.get(id);
      if (held && held.priority <= j.priority) continue;
      this.held.delete(id);
      if (!this.open && j.priority > (STAGES[this.stage] as number)) {
        this.held.set(id, j);
        continue;
      }
      this.sent.add(id);
      if (!this.open) this.outstanding.add(id);
      now.push(j);
    }
    return now;
  }

  /** A job ended (done or failed for good, or null at the start): the jobs of the next stage, when it opens. */
  ended(job: JobSpec | null): JobSpec[] {
    if (this.off || this.open) return [];
    if (job) this.outstanding.delete(specId(job));
    const out: JobSpec[] = [];
    while (this.outstanding.size === 0 && !this.open) {
      this.stage++;
      const held = [...this.held.values()];
      this.held = new Map();
      out.push(...this.pass(held));
    }
    return out;
  }
}
