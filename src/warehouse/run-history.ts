import type { WarehouseHandle } from './handle.ts';

/**
 * The latest runs of sync_runs, newest first, for `fragsync runs` and the dashboard. Columns
 * other than the contract's six (a newer warehouse may keep a run's mode and the rows it
 * added, changed and removed) follow the standard ones, so whatever the warehouse keeps per
 * run is shown.
 */

const CONTRACT = ['run_id', 'started_at', 'finished_at', 'status', 'calls', 'cost_cents'];

/**
 * A run's calls and cents as SQL over sync_runs: finishRun copies them from the ledger, so a
 * run still going (or paused for quota for hours) would show 0 while api_calls already holds
 * its calls; for that run they are summed from the ledger when read.
 */
const fromLedger = (agg: string, column: string) =>
  `CASE WHEN sync_runs.status = 'running' THEN (SELECT ${agg}::INTEGER FROM api_calls a WHERE a.run_id = sync_runs.run_id) ELSE ${column} END`;
export const RUN_CALLS_SQL = fromLedger('count(*)', 'calls');
export const RUN_CENTS_SQL = fromLedger('coalesce(sum(a.cost_cents), 0)', 'cost_cents');

/**
 * A run whose process died (kill -9, a double Ctrl-C) is closed as interrupted by the next
 * sync, with that sync's start as its end (sync/open-run.ts passes both the same instant): when
 * it really ended is unknown, and it is shown so rather than as a run that lasted until then.
 */
const FOUND_DEAD = `(sync_runs.status = 'interrupted' AND EXISTS (SELECT 1 FROM sync_runs n
    WHERE n.started_at = sync_runs.finished_at AND n.run_id <> sync_runs.run_id))`;
/** sync_runs with `found_dead`, the subquery run once per row for the columns that ask it. */
const RUNS = `(SELECT *, ${FOUND_DEAD} AS found_dead FROM sync_runs) sync_runs`;

/** sync_runs's columns beyond the contract's, in table order. */
export async function extraRunColumns(wh: Pick<WarehouseHandle, 'query'>): Promise<string[]> {
  const rows = await wh.query<{ name: string }>(
    "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'sync_runs' ORDER BY ordinal_position",
  );
  return rows.map((r) => r.name).filter((n) => !CONTRACT.includes(n));
}

/**
 * `exitCase`: a SQL expression of `status` for an exit_code column (the command line's
 * mapping; the warehouse does not know exit codes).
 */
export function runHistorySql(opts: {
  limit: number | null;
  extra: readonly string[];
  exitCase?: string;
}): string {
  const more = opts.extra.map((c) => `, sync_runs."${c.replace(/"/g, '""')}"`).join('');
  const exit = opts.exitCase ? `, ${opts.exitCase} AS exit_code` : '';
  // What the run set out to do (sync_run_modes; runs of older versions were all full),
  // unless a newer sync_runs keeps it itself.
  const own = opts.extra.includes('mode');
  const mode = own ? '' : ", coalesce(m.mode, 'full') AS mode";
  // Rounded to the second, as the sync's summary rounds its seconds (not cut: 7.9 s is 00:00:08).
  const duration = `to_seconds(round(epoch(coalesce(finished_at, now()) - started_at)))`;
  return `SELECT run_id,
  strftime(started_at, '%Y-%m-%d %H:%M:%S') AS started_utc,
  CASE WHEN found_dead THEN 'unknown: found dead ' || strftime(finished_at, '%Y-%m-%d %H:%M:%S')
    ELSE strftime(finished_at, '%Y-%m-%d %H:%M:%S') END AS ended_utc,
  CASE WHEN found_dead THEN NULL ELSE CAST(${duration} AS VARCHAR) END AS duration${mode},
  status AS cause${exit}, ${RUN_CALLS_SQL} AS calls, ${RUN_CENTS_SQL} AS cents${more}
FROM ${RUNS}${own ? '' : ' LEFT JOIN sync_run_modes m USING (run_id)'}
ORDER BY started_at DESC, run_id DESC${opts.limit === null ? '' : ` LIMIT ${opts.limit}`}`;
}
