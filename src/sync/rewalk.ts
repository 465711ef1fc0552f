import type { Logger } from 'pino';
import type { JobSpec } from '../../jobs/types.ts';
import type { Governor } from '../governor/types.ts';
import { serviceDay } from '../warehouse/service-clock.ts';
import type { ApiCallItem } from '../domain/calls.ts';
import type { Frontier } from './frontier.ts';
import { WalkDay } from './walk-day.ts';
import { governorOffset } from './governor-offset.ts';

/**
 * A run that waits through quota resets reads the lists again when each new quota window
 * opens, before the long tail of the backfill: what was added upstream meanwhile is found
 * (and fetched at its usual priority) while the backfill goes on, so a mirror that takes a
 * week to fill is still current at the top. Runs started by cron on a new day get the same
 * from Frontier (walks count per day); this covers the single long-running run.
 *
 * Every pause waits for a reset: the quota window resets at midnight UTC and the spec puts
 * its end on every response (X-RateLimit-Reset); the per-day cent cap also waits for the
 * service's midnight. So a pause that ends is a new day, and one pass per pause is at most one
 * pass per day, unless a quota recheck ended it early (sameWindow). (The clocks cannot tell it better: the local one may be skewed, and the
 * service's offset is only as fresh as the last response before the pause.)
 *
 * Runs of a backfill do the same when the service's day moved since an earlier run of the
 * cycle read the lists (walk-day.ts): judged on this run's first answer.
 */
export class ResetRewalk {
  private pass = 1;
  private pausing = false;
  private readonly day: WalkDay;

  constructor(
    private readonly frontier: Frontier,
    private readonly log: Logger,
  ) {
    this.day = new WalkDay(frontier.walksReadOn);
  }

  /** The run's first jobs, less the walk pages held until the service's day is known. */
  first(jobs: JobSpec[]): JobSpec[] {
    return this.day.hold(jobs);
  }

  /**
   * A job of this run reported its calls: on the first answered one, the service's day (the
   * governor's offset, from that answer's Date header) says whether the lists were read on an
   * earlier one (a new pass of them) or not (the held pages).
   */
  async answered(calls: readonly ApiCallItem[], governor: Governor | undefined): Promise<JobSpec[]> {
    if (!this.day.pending || !calls.some((c) => c.status > 0)) return [];
    const offsetMs = await governorOffset(governor);
    const judged = this.day.judge(serviceDay(new Date(), offsetMs));
    if (judged !== 'again') return judged;
    const walks = this.frontier.rewalk(++this.pass);
    this.log.info(
      { pass: this.pass, jobs: walks.length },
      'new service day since the lists were read: reading them again first',
    );
    return walks;
  }

  /** A pause began (may be told more than once per pause). */
  paused(): void {
    this.pausing = true;
  }

  /** The pause ended before the window reset (a recheck found quota): no new day, no pass. */
  sameWindow(): void {
    this.pausing = false;
  }

  /** The pause ended: the walk jobs to run before anything else. */
  resumed(): JobSpec[] {
    if (!this.pausing) return [];
    this.pausing = false;
    const walks = this.frontier.rewalk(++this.pass);
    this.log.info({ pass: this.pass, jobs: walks.length }, 'new quota day: reading the lists again first');
    return walks;
  }
}
