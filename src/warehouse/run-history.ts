import type { WarehouseHandle } from './handle.ts';

/**
 * The latest runs of sync_runs, newest first, for `fragsync runs` and the dashboard. Columns
 * other than the contract's six (a newer warehouse may keep a run's mode and the rows it
 * added, changed and removed) follow the standard ones, so whatever the warehouse keeps per
 * run is shown.
 */

const CONTRACT = ['run_id', 'started_at', 'finished_at', 'status', 'calls', 'cost_cents'];

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
  const more = opts.extra.map((c) => `, "${c.replace(/"/g, '""')}"`).join('');
  const exit = opts.exitCase ? `, ${opts.exitCase} AS exit_code` : '';
  return `SELECT run_id,
  strftime(started_at, '%Y-%m-%d %H:%M:%S') AS started_utc,
  strftime(finished_at, '%Y-%m-%d %H:%M:%S') AS ended_utc,
  CAST(date_trunc('second', coalesce(finished_at, now()) - started_at) AS VARCHAR) AS duration,
  status AS cause${exit}, calls, cost_cents AS cents${more}
FROM sync_runs ORDER BY started_at DESC, run_id DESC${opts.limit === null ? '' : ` LIMIT ${opts.limit}`}`;
}
