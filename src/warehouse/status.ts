import { readClocks } from './sync-state.ts';
import { RUN_CALLS_SQL, RUN_CENTS_SQL } from './run-history.ts';
import type { Warehouse } from './warehouse.ts';

/**
 * What `fragsync status` shows of the warehouse: today's spend from the ledger, the last
 * quota figure the service sent (label/value pairs, in display order), and the latest run,
 * for the caller to show once it knows whether that run's process is alive (latestRunRow).
 * Column names such as "at" are reserved words in DuckDB's parser: they are always quoted.
 */
export async function warehouseStatus(
  wh: Warehouse,
  dbPath: string,
  now = new Date(),
): Promise<{ rows: [string, string][]; run: LatestRun | undefined }> {
  // The day the per-day cap counts: the service's, as the last run saw its clock.
  const offsetMs = (await readClocks((sql) => wh.query(sql))).at(-1)?.offsetMs ?? 0;
  const day = new Date(now.getTime() + offsetMs).toISOString().slice(0, 10);
  const spend = await wh.spendOnDay(day);
  const [last] = await wh.query<{ sent: string; remaining: number | null }>(
    `SELECT strftime(timezone('UTC', c."at"), '%Y-%m-%dT%H:%M:%SZ') AS sent, c.quota_remaining AS remaining
     FROM api_calls c ORDER BY c."at" DESC, c.quota_remaining LIMIT 1`,
  );
  const rows: [string, string][] = [
    ['warehouse', dbPath],
    ['ledger: cents today (UTC)', `${spend.cents} in ${spend.calls} calls (the service's day ${day})`],
  ];
  // Beside Redis's figure (read now, from every process) this one is older and one process's
  // view: the label says which is which, so that two numbers do not read as a contradiction.
  if (last)
    rows.push([
      'quota remaining (ledger)',
      `${last.remaining ?? 'unknown'} as the service answered this warehouse's last call, sent ${last.sent}; calls since, by any process, are not in it`,
    ]);
  return { rows, run: await latestRun(wh) };
}

/** The latest run's line: `going` says whether a run still marked running has a live process. */
export function latestRunRow(run: LatestRun, going: (runId: string) => boolean): [string, string] {
  return [
    'latest run',
    `${run.run_id} ${runState(run, going)}: ${run.calls ?? 0} calls, ${run.cost_cents ?? 0} cents`,
  ];
}

/**
 * A run's status as a person should read it: one still marked running whose process is gone
 * (kill -9, a double Ctrl-C) did not finish; the next sync closes it as interrupted.
 */
export function runState(
  run: Pick<LatestRun, 'run_id' | 'status'>,
  going: (runId: string) => boolean,
): string {
  return run.status === 'running' && !going(run.run_id) ? 'did not finish (its process ended)' : run.status;
}

export interface LatestRun {
  run_id: string;
  status: string;
  /** ISO, this machine's clock; null while running. */
  finished_at: string | null;
  calls: number | null;
  cost_cents: number | null;
  /** Records the run quarantined (not stored). */
  quarantined: number;
}

/** The latest run of the warehouse (its calls and cents so far while it runs), or undefined. */
export async function latestRun(wh: Pick<Warehouse, 'query'>): Promise<LatestRun | undefined> {
  const [run] = await wh.query<LatestRun>(
    `SELECT run_id, status, strftime(timezone('UTC', finished_at), '%Y-%m-%dT%H:%M:%SZ') AS finished_at,
       ${RUN_CALLS_SQL} AS calls, ${RUN_CENTS_SQL} AS cost_cents,
       (SELECT count(*) FROM quarantine q WHERE q.run_id = sync_runs.run_id)::INTEGER AS quarantined
     FROM sync_runs ORDER BY started_at DESC LIMIT 1`,
  );
  return run;
}
