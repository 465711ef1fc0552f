import type { JobSpec } from '../../jobs/types.ts';
import type { WalkState } from '../warehouse/state-types.ts';
import type { ServiceClock } from '../warehouse/service-clock.ts';
import { utcDay } from '../governor/policy.ts';

/** The list walks: what Frontier.rewalk reads again, from page 1. */
const LIST_WALK = /^(fragrances@\d+|notes@\d+|accords|charts)$/;
const WALK_KINDS = new Set<JobSpec['kind']>(['fragrancesPage', 'notesPage', 'accords', 'charts']);

/**
 * The walk marks this run counts: a nightly reads the lists on every run (its only signals;
 * else a second run that day finds nothing), a backfill since this machine's UTC day began
 * (and the cycle). `readOn`: the service's day the latest list page among them was read on
 * (each at the offset its run recorded, sync_run_clocks), or null: none; the fetch stage
 * compares it with the service's day once this run's first answer tells it (WalkDay).
 */
export function walksCounted(
  walks: readonly WalkState[],
  runStart: Date,
  { cycleStart, due, clock }: { cycleStart: string; due: { mode: string }; clock: ServiceClock },
): { done: WalkState[]; readOn: string | null } {
  const today = `${runStart.toISOString().slice(0, 10)}T00:00:00.000Z`;
  const since = due.mode === 'nightly' ? runStart.toISOString() : today > cycleStart ? today : cycleStart;
  const counted = walks.filter((w) => w.at >= since);
  let latest: number | null = null;
  for (const w of counted) if (LIST_WALK.test(w.walk)) latest = Math.max(latest ?? -Infinity, clock.at(w.at));
  return {
    done: counted.filter((w) => w.done),
    readOn: latest === null ? null : utcDay(latest),
  };
}

/**
 * A backfill reads the lists again when the service's day moved since an earlier run of the
 * cycle read them: the README lets the service's clock decide, and under `POST
 * /_sim/advance-day` (or a service whose midnight is not this machine's) the machine's day
 * does not move with it. That day is known only once this run's first answer came (its Date
 * header, the governor's clockOffsetMs), so the walk jobs the cycle still owes (pages an
 * earlier run did not read) are held until then: on a new service day the lists are read
 * again whole, as a new pass (the held pages are not bought besides); on the same day the
 * held pages go out as they were. Nothing is paid twice within one service day: a list page
 * read on this service day already (by an earlier run, or partly) keeps the lists as read.
 */
export class WalkDay {
  private held: JobSpec[] = [];

  constructor(private readOn: string | null) {}

  /**
   * Of the first jobs, those to send now. With nothing else to send, no answer would come to
   * tell the day: the walk jobs go as before (the machine's day judged them).
   */
  hold(jobs: JobSpec[]): JobSpec[] {
    if (this.readOn === null) return jobs;
    const now = jobs.filter((j) => !WALK_KINDS.has(j.kind));
    if (now.length === 0) {
      this.readOn = null;
      return jobs;
    }
    this.held = jobs.filter((j) => WALK_KINDS.has(j.kind));
    return now;
  }

  /** Whether the service's day is still to be judged. */
  get pending(): boolean {
    return this.readOn !== null;
  }

  /**
   * The service's day now (YYYY-MM-DD): 'again' when the lists were last read on an earlier
   * one, else the held jobs to send. Once per run.
   */
  judge(serviceDay: string): 'again' | JobSpec[] {
    const readOn = this.readOn;
    const held = this.held;
    this.readOn = null;
    this.held = [];
    return readOn !== null && serviceDay > readOn ? 'again' : held;
  }
}
