import { ledgerQuota, ledgerToday, type LedgerQuota } from './ledger-day.ts';
import { overflowRowsOfRun } from './overflow-rows.ts';
import { RUN_CALLS_SQL, RUN_CENTS_SQL } from './run-history.ts';
import type { Warehouse } from './warehouse.ts';

/**
 * What `fragsync status` reads of the warehouse: today's spend from the ledger, the last
 * quota figure the service sent, and the latest run, for the caller to show once it knows
 * whether that run's process is alive (src/cli/commands/status.ts, src/cli/status-json.ts). Column names
 * such as "at" are reserved words in DuckDB's parser: they are always quoted.
 */
export interface WarehouseFigures {
  /** The ledger's calls and cents on the service's day `day` (YYYY-MM-DD). */
  spend: { day: string; calls: number; cents: number };
  /** The lowest quota remaining the service answered on its day of the last call (ledger-day.ts). */
  lastQuota: LedgerQuota | null;
  run: LatestRun | undefined;
}

export async function warehouseStatus(wh: Warehouse, now = new Date()): Promise<WarehouseFigures> {
  // The day the per-day cap counts and the quota's window: the service's, as the last run saw
  // its clock (the same figures `plan` and the dashboard show).
  return {
    spend: await ledgerToday(wh, now),
    lastQuota: await ledgerQuota(wh, now),
    run: await latestRun(wh),
  };
}

export interface LatestRun {
  run_id: string;
  /** full or nightly (sync_run_modes; runs of older versions were all full). */
  mode: string;
  status: string;
  /** ISO, this machine's clock. */
  started_at: string;
  /** ISO, this machine's clock; null while running. */
  finished_at: string | null;
  calls: number | null;
  cost_cents: number | null;
  /**
   * Records the run quarantined (not stored), as it counted them at its end
   * (sync_run_quarantined, as `fragsync runs` and its exit code 8): a later run that receives
   * the same invalid record takes its quarantine row over. A run going on, or of an older
   * version: its rows.
   */
  quarantined: number;
  /**
   * Jobs of the run that failed, still open in quarantine when it finished (scope 'job':
   * nothing was received; the next sync fetches their work again), as sync_run_quarantined
   * counted them apart; a run going on: its open job rows; a run of an older version: 0 (its
   * `quarantined` counted them).
   */
  failed_jobs: number;
  /**
   * Rows the run stored apart in the overflow tables (entries the contract's keys cannot
   * hold), as its summary said: stored, so no exit code of their own. Counted by _run_id; the
   * latest run's rows are replaced by no later one.
   */
  stored_apart: number;
  /**
   * A full run that completed its cycle: what the cycle's earlier runs left open in quarantine
   * (records, and apart failed jobs), as the run's end counted it and kept it
   * (sync_run_quarantined, migration 0012; src/sync/finish.ts): why a run with nothing of its own open is
   * 'completed_with_quarantine'. Zero for a nightly, and a run that did not complete.
   */
  earlier_in_cycle: { records: number; failedJobs: number };
}

const STORED_APART_SQL = overflowRowsOfRun('sync_runs.run_id');

const ISO = (col: string) => `strftime(timezone('UTC', ${col}), '%Y-%m-%dT%H:%M:%SZ')`;

/** The latest run of the warehouse (its calls and cents so far while it runs), or undefined. */
export async function latestRun(wh: Pick<Warehouse, 'query'>): Promise<LatestRun | undefined> {
  const [run] = await wh.query<LatestRun>(
    `SELECT run_id, coalesce(m.mode, 'full') AS mode, status,
       ${ISO('started_at')} AS started_at, ${ISO('finished_at')} AS finished_at,
       ${RUN_CALLS_SQL} AS calls, ${RUN_CENTS_SQL} AS cost_cents,
       coalesce((SELECT k.records FROM sync_run_quarantined k WHERE k.run_id = sync_runs.run_id),
         (SELECT count(*) FROM quarantine q WHERE q.run_id = sync_runs.run_id
            AND NOT (sync_runs.status = 'running' AND coalesce(q.scope = 'job', false))))::INTEGER AS quarantined,
       coalesce((SELECT k.failed_jobs FROM sync_run_quarantined k WHERE k.run_id = sync_runs.run_id),
         (SELECT count(*) FROM quarantine q WHERE q.run_id = sync_runs.run_id AND sync_runs.status = 'running'
            AND q.scope = 'job' AND q.released_at IS NULL AND q.superseded_at IS NULL), 0)::INTEGER AS failed_jobs,
       (${STORED_APART_SQL})::INTEGER AS stored_apart,
       (SELECT {'records': coalesce(k.earlier_records, 0), 'failedJobs': coalesce(k.earlier_failed_jobs, 0)}
        FROM sync_run_quarantined k WHERE k.run_id = sync_runs.run_id) AS earlier_in_cycle
     FROM sync_runs LEFT JOIN sync_run_modes m USING (run_id) ORDER BY started_at DESC LIMIT 1`,
  );
  if (!run) return undefined;
  const e = run.earlier_in_cycle as Partial<LatestRun['earlier_in_cycle']> | null;
  return {
    ...run,
    earlier_in_cycle: { records: Number(e?.records ?? 0), failedJobs: Number(e?.failedJobs ?? 0) },
  };
}
