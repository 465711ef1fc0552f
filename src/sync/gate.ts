import { PRIORITY, specId } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';

/** The stages of a nightly, in order: each is let out once nothing of the one before is left. */
const STAGES = [PRIORITY.fresh, PRIORITY.signal, Number.POSITIVE_INFINITY];

/**
 * A nightly pays in stages: first the walks, the new items (complete) and the checks of
 * removed ones; then the other signals (similar lists a change made stale); then what the
 * freshness policy says is due. Priorities alone would not do it: a driver fills every free
 * slot at once (with BullMQ, every worker's), so later work would take the slots, and under
 * a cap the budget, while the list walk was still finding the day's new fragrances. A job
 * owed by an earlier stage than the current one always goes at once. A full sync has no gate.
 */
export class Gate {
  private stage = 0;
  /** Ids of the jobs let out and not ended: a job reported twice ends once. */
  private readonly outstanding = new Set<string>();
  private readonly held: JobSpec[] = [];

  constructor(private open: boolean) {}

  /** The jobs to submit now; the rest is held. */
  pass(jobs: JobSpec[]): JobSpec[] {
    if (this.open) return jobs;
    const now: JobSpec[] = [];
    for (const j of jobs) {
      if (j.priority <= (STAGES[this.stage] as number)) {
        this.outstanding.add(specId(j));
        now.push(j);
      } else this.held.push(j);
    }
    return now;
  }

  /** A job ended (done or failed for good, or null at the start): the jobs of the next stage, when it opens. */
  ended(job: JobSpec | null): JobSpec[] {
    if (this.open) return [];
    if (job) this.outstanding.delete(specId(job));
    const out: JobSpec[] = [];
    while (this.outstanding.size === 0 && !this.open) {
      this.stage++;
      this.open = this.stage === STAGES.length - 1;
      const held = this.held.splice(0);
      const now = this.open ? held : this.pass(held);
      out.push(...now);
      if (this.open) break;
    }
    return out;
  }
}
