import { sqlFile } from './sql-files.ts';

/*
 * The statements about runs share two definitions, each in one file, put in front of them
 * here as CTEs: `calls` (every ledger row with its time on the service's clock, by the one
 * rule of src/warehouse/service-clock.ts: sql/runs/service-calls.sql) and `full_runs` and
 * `cycle_runs` (the cycle rule: sql/runs/full-runs.sql, sql/runs/cycle-runs.sql). Before, the
 * per-day figures took the latest run's offset for a call and the cycle's service days the
 * call's own run's (leaving out a run killed before it recorded one), and the cycle's runs
 * were worked out three times.
 */

const LEDGER = 'FROM api_calls a ';

/**
 * `calls` over the ledger rows `source` selects (all by default). The offsets come from every
 * run's clock whatever the source, so a row's service time is the same either way; a source
 * narrowed before the ASOF join keeps its sort small: on a synthetic ledger of 600k calls (a
 * 120k sync makes 570k) the join over the whole ledger grew the RSS by 90-165 MiB, narrowed to
 * the cycle's answered calls by 40-50 (session 14; the summary runs it at the run's end).
 */
function calls(source = 'api_calls'): string {
  const sql = sqlFile('runs/service-calls.sql');
  if (!sql.includes(LEDGER)) throw new Error(`sql/runs/service-calls.sql no longer reads '${LEDGER}'`);
  return `calls AS (${sql.replace(LEDGER, `FROM ${source} a `)})`;
}

/** The cycle's answered calls: all that cycle-before.sql and last-cycle.sql read of `calls`. */
const CYCLE_ANSWERED =
  '(SELECT * FROM api_calls WHERE status = 200 AND run_id IN (SELECT run_id FROM cycle_runs))';

/** `body` (one SELECT, no WITH of its own) with the CTE `calls` over `source` (calls()). */
export function withServiceCalls(body: string, source?: string): string {
  return `WITH ${calls(source)}\n${body}`;
}

/**
 * How far the recorded offsets (or 0: rows before every run's) can move a row's time onto the
 * service's clock: AHEAD at most (an interval, never negative), BEHIND at least (never
 * positive). A row outside their reach of a time cannot fall on it and need not go through the
 * clock join.
 */
const AHEAD = `to_milliseconds((SELECT greatest(0, coalesce(max(clock_offset_ms), 0)) FROM sync_run_clocks))`;
const BEHIND = `to_milliseconds((SELECT least(0, coalesce(min(clock_offset_ms), 0)) FROM sync_run_clocks))`;

/**
 * The ledger rows that can fall on the service's day bound as $1 (YYYY-MM-DD): a row's
 * service time is its time here plus an offset some run recorded, or 0, so only rows within
 * the recorded offsets' reach of that day can; the rest need not go through the join. The
 * per-day spend is read at every sync's start and every dashboard refresh, the quota on its
 * day by status and plan.
 */
export const ROWS_NEAR_DAY = `(SELECT * FROM api_calls
  WHERE "at" >= $1::DATE::TIMESTAMPTZ - ${AHEAD}
    AND "at" < ($1::DATE + 1)::TIMESTAMPTZ - ${BEHIND})`;

/**
 * The ledger rows carrying a quota that can be the newest on the service's clock: none older
 * here than the newest by this machine's clock less the offsets' whole spread can be (its
 * service time is at most its time plus AHEAD, the newest's at least its time plus BEHIND).
 */
export const QUOTA_ROWS_NEAR_NEWEST = `(SELECT * FROM api_calls
  WHERE quota_remaining IS NOT NULL
    AND "at" >= (SELECT max("at") FROM api_calls WHERE quota_remaining IS NOT NULL) - ${AHEAD} + ${BEHIND})`;

/**
 * Where a cycle ends, as `cycle_end(upto)`: a SELECT of one time, which may read `full_runs`.
 * OPEN: the cycle going on now; AT_RUN: the cycle of the run bound as $1, up to its start;
 * LAST_DONE: the last cycle a full run completed.
 */
export const CYCLE_END = {
  OPEN: `SELECT 'infinity'::TIMESTAMPTZ AS upto`,
  AT_RUN: 'SELECT started_at AS upto FROM sync_runs WHERE run_id = $1',
  LAST_DONE: `SELECT max(started_at) AS upto FROM full_runs WHERE done`,
} as const;

/**
 * `body` (one SELECT, no WITH of its own) with `full_runs`, `cycle_end`, `cycle_runs` and, if
 * asked, `calls` of the cycle's answered calls only (CYCLE_ANSWERED).
 */
export function withCycle(end: string, body: string, withCalls = true): string {
  const ctes = [
    `full_runs AS (${sqlFile('runs/full-runs.sql')})`,
    `cycle_end AS (${end})`,
    `cycle_runs AS (${sqlFile('runs/cycle-runs.sql')})`,
    ...(withCalls ? [calls(CYCLE_ANSWERED)] : []),
  ];
  return `WITH ${ctes.join(',\n')}\n${body}`;
}
