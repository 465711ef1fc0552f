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
  strftime(finished_at, '%Y-%m-%d %H:%M:%S') AS ended_utc,
  CAST(${duration} AS VARCHAR) AS duration${mode},
  status AS cause${exit}, ${RUN_CALLS_SQL} AS calls, ${RUN_CENTS_SQL} AS cents${more}
FROM sync_runs${own ? '' : ' LEFT JOIN sync_run_modes m USING (run_id)'}
ORDER BY started_at DESC, run_id DESC${opts.limit === null ? '' : ` LIMIT ${opts.limit}`}`;
}
