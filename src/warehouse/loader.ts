import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, rows, type Cell, type Db } from './db.ts';
import { toWarehouseError } from './warehouse-error.ts';
import {
  LOAD_TIME_COLUMN,
  loadCountsSql,
  parseMerge,
  planBatch,
  type BatchPlan,
  type MergeStatement,
} from './merge-plan.ts';
import type { LoadBatch } from '../domain/items.ts';
import { StoredKeys } from './stored-keys.ts';
import { sqlFile, sqlFiles } from './sql-files.ts';
import { stageBatch } from './stage-rows.ts';
import { STAGING_TABLES, columnTypes, stagingDdl } from './staging.ts';

export interface LoadResult {
  /** Rows the batch wrote (inserted or replaced) per table; 0 when a replay changed nothing new. */
  counts: Record<string, number>;
  /** Items that failed validation and went to the quarantine table instead. */
  invalidItems: number;
  /**
   * Set when DuckDB ran out of its memory limit in this batch: the limit (MB) it was raised to
   * before the batch was loaded again (see `Loader.load`).
   */
  memoryLimitRaisedMb?: number;
}

/**
 * How far a batch that ran out of DuckDB's memory may raise the limit (doubling from
 * session.sql's). The primary keys' indexes stay in memory and grow with the rows stored, so a
 * catalogue denser than the simulator's outgrows the default (docs/benchmarks.md, "Session
 * 12: loader"); failing every run at the same point would leave the user no way forward.
 */
const MEMORY_LIMIT_CEILING_MB = 1536;

function isOutOfMemory(err: unknown): boolean {
  return err instanceof Error && /Out of Memory Error/.test(err.message);
}

/** A loader's state a loader on a new connection of the same process takes over. */
export interface LoaderCarry {
  keys: StoredKeys | null;
  limitMb: number;
}

/** The merge statements, read once per process. */
export class Loader {
  private readonly merges: MergeStatement[] = parseMerge(sqlFiles('merge'));
  private readonly sessionSql = sqlFile('session.sql');
  /** Work tables (w_*) that may still hold an earlier batch's rows. */
  private filled = new Set<string>();
  private stored: StoredKeys | null = null;
  /** session.sql's memory limit, MB. */
  private readonly sessionMb = Number(/SET memory_limit = '(\d+)MB'/.exec(this.sessionSql)?.[1] ?? NaN);
  /** DuckDB's memory limit on this connection's database, MB: session.sql's (or `startMb`) until raised. */
  private limitMb: number;

  /** `startMb`: a limit to start at instead of session.sql's (OpenOptions.memoryLimitMb, tests). */
  constructor(
    private readonly db: Db,
    startMb?: number,
  ) {
    this.limitMb = startMb ?? this.sessionMb;
  }

  /**
   * What a loader on the next connection of this process takes over (kept across a reopen):
   * the keys the warehouse holds per replaced table, and the memory limit as raised.
   */
  get carried(): LoaderCarry {
    return { keys: this.stored, limitMb: this.limitMb };
  }

  /**
   * Creates the temp staging tables, batch macros and (empty) work tables on this connection.
   * `from`: what a loader on an earlier connection of this process knew. Its keys, as nobody
   * else has written since (the writer lock), instead of reading them again; its memory limit,
   * if raised, since the indexes that needed it are as large now (session.sql sets 96MB again,
   * and the next large batch would roll back once more, at every reopen).
   */
  async prepare(from: LoaderCarry | null = null): Promise<void> {
    await this.db.run(stagingDdl(STAGING_TABLES));
    await this.db.run(this.sessionSql);
    // The carried limit is session.sql's raised, or the limit a test started at.
    this.limitMb = from?.limitMb ?? this.limitMb;
    if (this.limitMb !== this.sessionMb) await this.db.run(`SET memory_limit = '${this.limitMb}MB'`);
    const keys = from?.keys ?? null;
    // Every work table exists from the start, so a statement may read one a batch skipped.
    const creates = this.merges.filter((m) => m.verb === 'creates').map((m) => m.sql);
    await this.db.run(creates.join('\n'));
    this.stored = keys ?? (await this.db.exclusive((c) => StoredKeys.read(c)));
  }

  /**
   * Applies the batch in ONE transaction: either all of it is in the warehouse, or none.
   * Its rows are appended to the staging tables inside that transaction and emptied again
   * before it commits, so the staging tables are empty between batches whether it commits or
   * rolls back. They are never re-created (before, every batch began by re-creating the
   * previous batch's), and no append commits on its own.
   */
  async load(batch: LoadBatch, loadedAt: Date): Promise<LoadResult> {
    let raisedMb: number | undefined;
    for (;;) {
      try {
        const result = await this.loadOnce(batch, loadedAt);
        return raisedMb === undefined ? result : { ...result, memoryLimitRaisedMb: raisedMb };
      } catch (err) {
        // The batch rolled back whole, so loading it again with more room is safe.
        const next = this.limitMb * 2;
        if (!isOutOfMemory(err) || !(next <= MEMORY_LIMIT_CEILING_MB)) throw err;
        await this.db.run(`SET memory_limit = '${next}MB'`);
        this.limitMb = raisedMb = next;
      }
    }
  }

  private async loadOnce(batch: LoadBatch, loadedAt: Date): Promise<LoadResult> {
    let staged: ReturnType<typeof stageBatch>;
    try {
      staged = stageBatch(batch);
    } catch (err) {
      throw toWarehouseError(err, `load of run ${batch.runId} refused`, this.db.path);
    }
    const invalidItems = staged.stg_quarantine.cols[1]!.filter((endpoint) => endpoint === 'loader').length;
    const appended = STAGING_TABLES.filter((t) => staged[t].length > 0);
    const nonEmpty = new Set<string>(appended);
    return this.db.exclusive(async (c) => {
      try {
        const plan = planBatch(
          this.merges,
          nonEmpty,
          this.filled,
          this.stored?.skippable(staged),
          this.stored?.rewrite(staged),
        );
        // Until the transaction settles, assume every work table may hold rows.
        const before = this.filled;
        this.filled = new Set(this.merges.flatMap((m) => (m.verb === 'creates' ? [m.table] : [])));
        try {
          await c.run(
            `${batchVariables(batch.runId, loadedAt, staged.stg_api_call.cols[1]!)}\nBEGIN TRANSACTION;`,
          );
          for (const t of appended) await appendRows(c, t, columnTypes(t), staged[t]);
          // One round trip for the merges and one for the end: every await is a turn of the
          // event loop, which is busy with the fetch side while a sync runs.
          const counts = await this.applyAndCount(c, plan, loadedAt);
          await c.run([...appended.map((t) => `TRUNCATE ${t};`), 'COMMIT;'].join('\n'));
          this.filled = plan.filled;
          this.stored?.record(staged);
          return { counts, invalidItems };
        } catch (err) {
          // A failed statement leaves the transaction open (aborted); a failed BEGIN leaves none.
          await c.run('ROLLBACK').catch(() => undefined);
          // The rollback restored the work tables as they were before this batch.
          this.filled = before;
          throw err;
        }
      } catch (err) {
        throw toWarehouseError(err, `load of run ${batch.runId} failed`, this.db.path);
      }
    });
  }

  /**
   * The planned merges, then the rows per table carrying this batch's load time, in one
   * multi-statement call (its result is the last statement's). Tables no statement wrote
   * are 0 without a scan.
   */
  private async applyAndCount(
    c: DuckDBConnection,
    plan: BatchPlan,
    loadedAt: Date,
  ): Promise<Record<string, number>> {
    const counted = Object.keys(LOAD_TIME_COLUMN);
    const counts = Object.fromEntries(counted.map((t) => [t, 0]));
    const arms = counted.filter((t) => plan.writes.has(t));
    const body = [plan.sql, loadCountsSql(arms, loadedAt)].filter((x) => x.length > 0).join('\n');
    if (body.length === 0) return counts;
    if (arms.length === 0) {
      await c.run(body);
      return counts;
    }
    for (const r of await rows<{ t: string; n: number }>(c, body)) counts[r.t] = Number(r.n);
    return counts;
  }
}

/**
 * The batch's run id and load time: the variables behind batch_run() and batch_at() (see
 * sql/session.sql). The load time is inlined as a literal (an ISO string we made); the run
 * id is quoted as an SQL string literal. Also the first and last send time of the batch's
 * calls (batch_calls_from/to): a stored call can share a call's key only if it has its send
 * time (the key hashes it, or is the request's call id, whose every report carries the one
 * time it was sent), so the ledger's replay check reads only that stretch of api_calls,
 * pruned by its zone maps, instead of every stored key (07_ledger.sql).
 */
function batchVariables(runId: string, loadedAt: Date, callTimes: readonly Cell[]): string {
  let from = Infinity;
  let to = -Infinity;
  for (const at of callTimes) {
    const t = Date.parse(at as string);
    if (t < from) from = t;
    if (t > to) to = t;
  }
  const time = (t: number) => (Number.isFinite(t) ? `'${new Date(t).toISOString()}'::TIMESTAMPTZ` : 'NULL');
  return (
    `SET VARIABLE fragsync_batch_run = '${runId.replaceAll("'", "''")}';\n` +
    `SET VARIABLE fragsync_batch_at = '${loadedAt.toISOString()}'::TIMESTAMPTZ;\n` +
    `SET VARIABLE fragsync_calls_from = ${time(from)};\n` +
    `SET VARIABLE fragsync_calls_to = ${time(to)};`
  );
}
