import type { ClockMark } from './state-types.ts';

/**
 * The service's clock as the warehouse saw it. Fetch times are stored on this machine's clock;
 * each run keeps the offset its responses' Date headers showed (sync_run_clocks). A time
 * stored during a run is, on the service's clock, that time plus the offset of the latest run
 * started at or before it: so a day the service passed between two runs is a day for what the
 * first fetched and not for what the second did, and a second nightly on the same service day
 * finds nothing of the daily datasets due. Times before every recorded run (older versions)
 * count at offset 0, as against a real service (whose offset is about 0) nothing moves.
 */
export interface ServiceClock {
  /** A stored time (ISO, this machine's clock) on the service's clock as it was then (ms). */
  at(stored: string): number;
  /** The offset the latest run recorded (service minus local, ms), or null: none recorded. */
  readonly lastOffsetMs: number | null;
  /** The run that recorded it. */
  readonly lastRunId: string | null;
}

/** The clock of `marks` (any order). */
export function serviceClock(marks: readonly ClockMark[] = []): ServiceClock {
  const sorted = marks
    .map((m) => ({ from: Date.parse(m.from), offsetMs: m.offsetMs, runId: m.runId }))
    .sort((a, b) => a.from - b.from);
  const last = sorted.at(-1);
  return {
    lastOffsetMs: last?.offsetMs ?? null,
    lastRunId: last?.runId ?? null,
    at(stored) {
      const t = Date.parse(stored);
      // The latest mark at or before t (binary search: the nightly asks once per item and dataset).
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((sorted[mid] as { from: number }).from <= t) lo = mid + 1;
        else hi = mid;
      }
      return t + (lo === 0 ? 0 : (sorted[lo - 1] as { offsetMs: number }).offsetMs);
    },
  };
}

/**
 * The service's UTC day (YYYY-MM-DD) at `local` on this machine, by the offset last recorded
 * (null: none, this machine's day): the day the per-day cent cap counts.
 */
export function serviceDay(local: Date, lastOffsetMs: number | null): string {
  return new Date(local.getTime() + (lastOffsetMs ?? 0)).toISOString().slice(0, 10);
}
