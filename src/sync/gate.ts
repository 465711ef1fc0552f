import { PRIORITY } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';

/**
 * A nightly pays for its signals before anything else: the walks (they find what is new and
 * removed), the new items and what the signals owe go out first, and the refreshes the
 * freshness policy owes wait until none of those is left. Priorities alone would not do it: a
 * driver fills every free slot at once, so stale profiles would take the slots (and, under a
 * cap, the budget) while the list walk was still finding the day's new fragrances. Once open,
 * the gate lets everything through (priorities still order the queue). A full sync has no gate.
 */
export class Gate {
  private urgent = 0;
  private readonly held: JobSpec[] = [];

  constructor(private open: boolean) {}

  /** The jobs to submit now; the rest is held. */
  pass(jobs: JobSpec[]): JobSpec[] {
    if (this.open) return jobs;
    const now: JobSpec[] = [];
    for (const j of jobs) {
      if (j.priority <= PRIORITY.signal) {
        this.urgent++;
        now.push(j);
      } else this.held.push(j);
    }
    return now;
  }

  /** A job ended (done or failed for good); the held jobs once nothing urgent is left. */
  ended(job: JobSpec | null): JobSpec[] {
    if (this.open) return [];
    if (job && job.priority <= PRIORITY.signal) this.urgent--;
    if (this.urgent > 0) return [];
    this.open = true;
    return this.held.splice(0);
  }
}
