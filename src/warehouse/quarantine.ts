import type { Dataset, EntityKind } from '../domain/entities.ts';
import type { WarehouseHandle } from './handle.ts';
import { CYCLE_END, withCycle } from './run-sql.ts';
import { sqlFile } from './sql-files.ts';
import { FETCHED_COLUMN } from './state-types.ts';

/**
 * The quarantine table as the run summary, `fragsync quarantine` and its re-validation read
 * it. A row is pending until `released_at` says it was stored after all, or `superseded_at`
 * that a later answer of the record was quarantined in its place. "at" is a
 * reserved word in DuckDB's parser: always quoted.
 */

type Queryable = Pick<WarehouseHandle, 'query'>;

/**
 * A row still open: not released (stored since), nor superseded (a later answer of the same
 * record was quarantined too: that row stands for it, sql/merge/07_ledger.sql).
 */
export const OPEN = 'released_at IS NULL AND superseded_at IS NULL';

/**
 * Endpoints whose whole answer one job reads in one call, with the dataset it stores for the
 * key the path names: what `--revalidate` can play back, and what the nightly asks for again
 * while a quarantined answer of it is still open (sync-state.ts).
 */
export const STORED_BY: Readonly<
  Record<string, { entity: EntityKind; dataset: Dataset; field: 'id' | 'slug' }>
> = {
  '/v1/fragrances/{id}': { entity: 'fragrance', dataset: 'profile', field: 'id' },
  '/v1/fragrances/{id}/similar': { entity: 'fragrance', dataset: 'similar', field: 'id' },
  '/v1/fragrances/{id}/wearing-stats': { entity: 'fragrance', dataset: 'wearing', field: 'id' },
  '/v1/fragrances/{id}/review-digest': { entity: 'fragrance', dataset: 'reviewDigest', field: 'id' },
  '/v1/brands/{slug}': { entity: 'brand', dataset: 'profile', field: 'slug' },
  '/v1/perfumers/{slug}': { entity: 'perfumer', dataset: 'profile', field: 'slug' },
  '/v1/notes/{slug}': { entity: 'note', dataset: 'profile', field: 'slug' },
  '/v1/charts/{slug}': { entity: 'chart', dataset: 'profile', field: 'slug' },
};

/** Records of one endpoint (or job kind, or 'loader'), with one example reason. */
export interface EndpointCount {
  endpoint: string;
  count: number;
  example: string;
}

/**
 * The rows of one run still open (not released), as the run's end counts them: its records
 * (received, not stored), and apart the jobs that failed (scope 'job': nothing was received).
 */
const OPEN_OF_RUN = `run_id = ? AND ${OPEN}`;
const IS_JOB = "scope = 'job'";

/** What one run left in quarantine, per endpoint as recorded (the API's path template for a response). */
export async function quarantinedInRun(wh: Queryable, runId: string): Promise<EndpointCount[]> {
  const rows = await wh.query<{ endpoint: string; count: number; example: string }>(
    `SELECT coalesce(endpoint, '') AS endpoint, count(*)::INTEGER AS count, arg_min(reason, "at") AS example
     FROM quarantine WHERE ${OPEN_OF_RUN} AND NOT coalesce(${IS_JOB}, false) GROUP BY 1 ORDER BY 2 DESC, 1`,
    [runId],
  );
  return rows.map((r) => ({ endpoint: r.endpoint, count: Number(r.count), example: r.example }));
}

/** The jobs of one run that failed and whose work no later fetch of the run did (open 'job' rows). */
export async function failedJobsInRun(wh: Queryable, runId: string): Promise<number> {
  const [row] = await wh.query<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM quarantine WHERE ${OPEN_OF_RUN} AND ${IS_JOB}`,
    [runId],
  );
  return Number(row?.n ?? 0);
}

/** Open rows of a cycle's earlier runs: records received and not stored, and apart failed jobs. */
export interface CycleOpen {
  records: number;
  failedJobs: number;
}

/**
 * What the earlier full runs of run `runId`'s cycle (CTE cycle_runs, sql/runs/cycle-runs.sql)
 * left open in quarantine, as the run that completes the cycle counts it at its end (after
 * its releases): records it did not ask again, since the cycle had fetched them already, are
 * missing from the mirror all the same. Rows of runs before the cycle are not counted (a new
 * cycle asks everything again; what it still cannot store is its own), nor nightly runs'.
 */
export async function openOfEarlierCycleRuns(wh: Queryable, runId: string): Promise<CycleOpen> {
  const [row] = await wh.query<{ records: number; jobs: number }>(
    withCycle(
      CYCLE_END.AT_RUN,
      `SELECT count(*) FILTER (WHERE NOT coalesce(${IS_JOB}, false))::INTEGER AS records,
         count(*) FILTER (WHERE ${IS_JOB})::INTEGER AS jobs
       FROM quarantine WHERE ${OPEN} AND run_id <> $1 AND run_id IN (SELECT run_id FROM cycle_runs)`,
      false,
    ),
    [runId],
  );
  return { records: Number(row?.records ?? 0), failedJobs: Number(row?.jobs ?? 0) };
}

/**
 * Keeps beside the run's own counts (sync_run_quarantined, written as it closed) what its
 * cycle's earlier runs left open at its end, as its status counted it (migration 0012).
 */
export async function recordEarlierInCycle(wh: Queryable, runId: string, open: CycleOpen): Promise<void> {
  if (open.records === 0 && open.failedJobs === 0) return;
  await wh.query(
    'UPDATE sync_run_quarantined SET earlier_records = ?, earlier_failed_jobs = ? WHERE run_id = ?',
    [open.records, open.failedJobs, runId],
  );
}

/**
 * Values this run stored that break a range the spec states (the value_flags view), per
 * table: stored as sent, so they never change the exit code.
 */
export async function flaggedInRun(wh: Queryable, runId: string): Promise<EndpointCount[]> {
  const rows = await wh.query<{ endpoint: string; count: number; example: string }>(
    `SELECT table_name AS endpoint, count(*)::INTEGER AS count,
       arg_min(rule || ' (' || column_name || ' = ' || value || ' for ' || fragrance_id || ')', fragrance_id) AS example
     FROM value_flags WHERE run_id = ? GROUP BY 1 ORDER BY 2 DESC, 1`,
    [runId],
  );
  return rows.map((r) => ({ endpoint: r.endpoint, count: Number(r.count), example: r.example }));
}

/** The listing of `fragsync quarantine`: pending rows (all with `all`), newest first. */
export function quarantineListSql(opts: { payload: boolean; all: boolean }): string {
  return `SELECT endpoint, key, reason, strftime("at", '%Y-%m-%d %H:%M:%S') AS at_utc, run_id, scope${
    opts.all
      ? `, strftime(released_at, '%Y-%m-%d %H:%M:%S') AS released_utc, strftime(superseded_at, '%Y-%m-%d %H:%M:%S') AS superseded_utc`
      : ''
  }${opts.payload ? ', raw AS payload' : ''}
FROM quarantine${opts.all ? '' : ` WHERE ${OPEN}`}
ORDER BY "at" DESC, endpoint, key`;
}

/** A pending row, with its rowid to release it by. */
export interface PendingRow {
  rowid: number;
  runId: string | null;
  at: Date;
  endpoint: string;
  key: string;
  scope: string | null;
  raw: unknown;
}

export async function pendingQuarantine(wh: Queryable): Promise<PendingRow[]> {
  const rows = await wh.query<{
    rowid: bigint | number;
    run_id: string | null;
    at_ms: bigint | number;
    endpoint: string | null;
    key: string | null;
    scope: string | null;
    raw: string | null;
  }>(
    `SELECT rowid, run_id, epoch_ms("at") AS at_ms, endpoint, key, scope, raw::VARCHAR AS raw
     FROM quarantine WHERE ${OPEN} ORDER BY "at", rowid`,
  );
  return rows.map((r) => ({
    rowid: Number(r.rowid),
    runId: r.run_id,
    at: new Date(Number(r.at_ms)),
    endpoint: r.endpoint ?? '',
    key: r.key ?? '',
    scope: r.scope,
    raw: r.raw === null ? null : (JSON.parse(r.raw) as unknown),
  }));
}

/**
 * Releases the open rows whose dataset a later fetch stored (or found gone upstream): the
 * nightly asks again for what is open (sync-state.ts), and a record the service now sends
 * valid is in the mirror, no longer missing. A row quarantined again is as recent as its
 * fetch, so it stays open; and so do the record's older rows, since that fetch stored
 * nothing either (released means stored: before, a record refused again with another
 * payload released its older row). Returns how many were released.
 */
export async function releaseFetchedSince(wh: Queryable, at: Date): Promise<number> {
  const stored = Object.entries(STORED_BY)
    .map(([endpoint, s]) => `('${endpoint}', '${s.entity}', '${FETCHED_COLUMN[s.dataset]}')`)
    .join(', ');
  const fetched = [...new Set(Object.values(STORED_BY).map((s) => FETCHED_COLUMN[s.dataset]))]
    .map((c) => `WHEN '${c}' THEN i.${c}`)
    .join(' ');
  const released = await wh.query<{ key: string }>(
    `UPDATE quarantine SET released_at = ?::TIMESTAMPTZ WHERE rowid IN (
       SELECT q.rowid FROM quarantine q
       JOIN (VALUES ${stored}) m(endpoint, entity, col) ON m.endpoint = q.endpoint
       JOIN sync_items i ON i.entity = m.entity AND i.key = q.key
       WHERE q.released_at IS NULL AND q.superseded_at IS NULL AND coalesce(q.scope, 'response') = 'response'
         AND (CASE m.col ${fetched} END) > q."at"
         AND NOT EXISTS (
           SELECT 1 FROM quarantine n
           WHERE n.endpoint = q.endpoint AND n.key = q.key AND coalesce(n.scope, 'response') = 'response'
             AND n."at" >= (CASE m.col ${fetched} END)))
     RETURNING key`,
    [at.toISOString()],
  );
  return released.length;
}

/**
 * Closes the open rows (scope 'response', and 'entry' of a response naming an item) of records
 * now gone upstream (sync_items.removed: a 404 of any of the item's details, or its list): the
 * nightly no longer asks a removed item, and nothing is missing from the mirror of a record
 * upstream no longer has. Released, as the row of a profile asked again and answered 404
 * always was: the answer that found it gone stands for the record (data dictionary,
 * quarantine). Runs before releaseFetchedSince, so the summary says them apart ("closed: gone
 * upstream"), not as stored. Returns how many.
 */
export async function releaseRemoved(wh: Queryable, at: Date): Promise<number> {
  const entities = Object.entries(STORED_BY)
    .map(([endpoint, s]) => `('${endpoint}', '${s.entity}')`)
    .join(', ');
  const closed = await wh.query<{ key: string }>(
    `UPDATE quarantine SET released_at = ?::TIMESTAMPTZ WHERE rowid IN (
       SELECT q.rowid FROM quarantine q
       JOIN (VALUES ${entities}) m(endpoint, entity) ON m.endpoint = q.endpoint
       JOIN sync_items i ON i.entity = m.entity AND i.key = q.key
       WHERE q.released_at IS NULL AND q.superseded_at IS NULL
         AND coalesce(q.scope, 'response') IN ('response', 'entry') AND coalesce(i.removed, false))
     RETURNING key`,
    [at.toISOString()],
  );
  return closed.length;
}

/**
 * Releases the open rows of jobs that failed (scope 'job': nothing was received, the row names
 * what a run did not get) once a later sync fetched what the job was to fetch, as the
 * warehouse's state records it (sql/runs/release-jobs.sql): a job that failed on the network
 * is no longer missing once the next sync read its item or its page. Returns how many.
 */
export async function releaseFetchedJobs(wh: Queryable, at: Date): Promise<number> {
  return (await wh.query(sqlFile('runs/release-jobs.sql'), [at.toISOString()])).length;
}

/**
 * Closes the older open rows of each record quarantined again with another answer
 * (sql/runs/supersede.sql): the latest answer's rows stand for it. Returns how many.
 */
export async function supersedeQuarantined(wh: Queryable, at: Date): Promise<number> {
  return (await wh.query(sqlFile('runs/supersede.sql'), [at.toISOString()])).length;
}

/** Marks rows loaded after all: they stay, for the record, but are no longer pending. */
export async function releaseQuarantine(wh: Queryable, rowids: readonly number[], at: Date): Promise<void> {
  if (rowids.length === 0) return;
  await wh.query(`UPDATE quarantine SET released_at = ?::TIMESTAMPTZ WHERE rowid IN (${rowids.join(', ')})`, [
    at.toISOString(),
  ]);
}

/**
 * When a dataset of an entity was last fetched (sync_items), or null: a pending row older
 * than that was superseded by a later answer, and loading it would put back an older state.
 */
export async function lastFetched(
  wh: Queryable,
  entity: string,
  key: string,
  dataset: Dataset,
): Promise<Date | null> {
  const column = FETCHED_COLUMN[dataset];
  const [row] = await wh.query<{ ms: bigint | number | null }>(
    `SELECT epoch_ms("${column}") AS ms FROM sync_items WHERE entity = ? AND key = ?`,
    [entity, key],
  );
  return row?.ms === null || row?.ms === undefined ? null : new Date(Number(row.ms));
}
