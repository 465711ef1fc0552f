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
 * A run whose process died (SIGKILL, out of memory) is recorded 'died' by the next sync, with
 * that sync's start as its end (sync/dead-runs.ts): when it really ended is unknown, and it is
 * shown so rather than as a run that lasted until then, with no exit code (none was seen).
 * Versions before closed such a run 'interrupted' at the next run's start instant: found so.
 */
const FOUND_DEAD = `(sync_runs.status = 'died' OR (sync_runs.status = 'interrupted' AND EXISTS (SELECT 1 FROM sync_runs n
    WHERE n.started_at = sync_runs.finished_at AND n.run_id <> sync_runs.run_id)))`;

/** What a reader found of runs still marked running: 'died' or 'unknown' (else running). */
export type RunningState = ReadonlyMap<string, 'died' | 'unknown'>;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** `live`: a running run's state as the reader found it (run-liveness.ts), NULL for the rest. */
function liveCase(running: RunningState | undefined): string {
  const whens = [...(running ?? [])].map(([id, state]) => `WHEN ${quote(id)} THEN ${quote(state)}`);
  return whens.length === 0
    ? 'NULL::VARCHAR'
    : `CASE WHEN status = 'running' THEN CASE run_id ${whens.join(' ')} END END`;
}

/** sync_runs with `found_dead` and `live`, the subquery run once per row for the columns that ask it. */
const runsOf = (running: RunningState | undefined) =>
  `(SELECT *, ${FOUND_DEAD} AS found_dead, ${liveCase(running)} AS live FROM sync_runs) sync_runs`;

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
  /** Runs marked running whose process the reader found gone, or could not check. */
  running?: RunningState;
}): string {
  const more = opts.extra.map((c) => `, sync_runs."${c.replace(/"/g, '""')}"`).join('');
  // No exit code for a run found dead: the process that could have seen it is gone.
  const exit = opts.exitCase ? `, CASE WHEN found_dead THEN NULL ELSE ${opts.exitCase} END AS exit_code` : '';
  // What the run set out to do (sync_run_modes; runs of older versions were all full),
  // unless a newer sync_runs keeps it itself.
  const own = opts.extra.includes('mode');
  const mode = own ? '' : ", coalesce(m.mode, 'full') AS mode";
  // Rounded to the second, as the sync's summary rounds its seconds (not cut: 7.9 s is 00:00:08).
  const duration = `to_seconds(round(epoch(coalesce(finished_at, now()) - started_at)))`;
  return `SELECT run_id,
  strftime(started_at, '%Y-%m-%d %H:%M:%S') AS started_utc,
  CASE WHEN found_dead THEN 'unknown: found dead ' || strftime(finished_at, '%Y-%m-%d %H:%M:%S')
    WHEN live = 'died' THEN 'unknown: its process is gone'
    ELSE strftime(finished_at, '%Y-%m-%d %H:%M:%S') END AS ended_utc,
  CASE WHEN found_dead OR live IS NOT NULL THEN NULL ELSE CAST(${duration} AS VARCHAR) END AS duration${mode},
  coalesce(live, status) AS cause${exit}, ${RUN_CALLS_SQL} AS calls, ${RUN_CENTS_SQL} AS cents${more}
FROM ${runsOf(opts.running)}${own ? '' : ' LEFT JOIN sync_run_modes m USING (run_id)'}
ORDER BY started_at DESC, run_id DESC${opts.limit === null ? '' : ` LIMIT ${opts.limit}`}`;
}
