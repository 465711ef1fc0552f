import { extraRunColumns, runHistorySql } from '../warehouse/run-history.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';
import { ledgerQuota, ledgerToday, type LedgerQuota } from '../warehouse/ledger-day.ts';
import { runningStates } from '../warehouse/run-liveness.ts';
import { latestRun, type LatestRun } from '../warehouse/status.ts';
import { OPEN } from '../warehouse/quarantine.ts';

/** A small result for the page: column names and rows of JSON-safe values. */
export interface Grid {
  columns: string[];
  rows: unknown[][];
}

export interface WarehouseFigures {
  runs: Grid;
  /** The ledger's calls and cents of the service's UTC day (all runs), as `status` says them. */
  ledgerToday: { day: string; calls: number; cents: number };
  /** The quota as the service last answered it to this warehouse's calls, as `status` says it. */
  lastQuota: LedgerQuota | null;
  /** The latest run (its calls and cents), as `status` says it: the run card without Redis. */
  latestRun: LatestRun | undefined;
  /** The `freshness` view, where this warehouse has one (null: an older warehouse). */
  freshness: Grid | null;
  /** Pending records (received, not stored), and apart the pending failed jobs (nothing received). */
  quarantine: { total: number; failedJobs: number; byEndpoint: Grid; latest: Grid };
}

const RUNS_SHOWN = 10;
const FRESHNESS_ROWS = 50;

async function grid(wh: Warehouse, sql: string): Promise<Grid> {
  const out: Grid = { columns: [], rows: [] };
  await wh.streamQuery(sql, {
    as: 'json',
    columns: (cols) => out.columns.push(...cols.map((c) => c.name)),
    rows: (rows) => {
      for (const r of rows) out.rows.push([...r]);
    },
  });
  return out;
}

async function hasRelation(wh: Warehouse, name: string): Promise<boolean> {
  const [row] = await wh.query<{ n: number }>(
    'SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = ?',
    [name],
  );
  return (row?.n ?? 0) > 0;
}

/** A quarantine row of a record received (not a job that failed: scope 'job'). */
const RECORD = "coalesce(scope, 'response') <> 'job'";

/** `dbPath`: where `wh` was opened, for its writer lock (a run marked running may have died). */
export async function readWarehouseFigures(
  wh: Warehouse,
  now: Date,
  dbPath: string,
): Promise<WarehouseFigures> {
  const extra = await extraRunColumns(wh);
  const { states: running } = await runningStates(wh, dbPath);
  // Pending rows only (those released are stored now): records received and not stored, and
  // apart the jobs that failed (scope 'job': nothing received, to fetch again by the next sync).
  const [total] = await wh.query<{ n: number; jobs: number }>(
    `SELECT count(*) FILTER (WHERE ${RECORD})::INTEGER AS n, count(*) FILTER (WHERE NOT ${RECORD})::INTEGER AS jobs
     FROM quarantine WHERE ${OPEN}`,
  );
  return {
    runs: await grid(wh, runHistorySql({ limit: RUNS_SHOWN, extra, running })),
    ledgerToday: await ledgerToday(wh, now),
    lastQuota: await ledgerQuota(wh, now),
    latestRun: await latestRun(wh),
    freshness: (await hasRelation(wh, 'freshness'))
      ? await grid(wh, `SELECT * FROM freshness LIMIT ${FRESHNESS_ROWS}`)
      : null,
    quarantine: {
      total: total?.n ?? 0,
      failedJobs: total?.jobs ?? 0,
      byEndpoint: await grid(
        wh,
        `SELECT endpoint, count(*)::INTEGER AS records, strftime(max("at"), '%Y-%m-%d %H:%M:%S') AS latest_utc
         FROM quarantine WHERE ${OPEN} AND ${RECORD} GROUP BY endpoint ORDER BY records DESC, endpoint`,
      ),
      latest: await grid(
        wh,
        `SELECT strftime("at", '%Y-%m-%d %H:%M:%S') AS at_utc, endpoint, key, reason
         FROM quarantine WHERE ${OPEN} AND ${RECORD} ORDER BY "at" DESC LIMIT 10`,
      ),
    },
  };
}
