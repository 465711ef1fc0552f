import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, rows, toWarehouseError, type Db } from './db.ts';
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
import { STAGING_TABLES, columnTypes, stagingDdl, type StagingTable } from './staging.ts';

export interface LoadResult {
  /** Rows the batch wrote (inserted or replaced) per table; 0 when a replay changed nothing new. */
  counts: Record<string, number>;
  /** Items that failed validation and went to the quarantine table instead. */
  invalidItems: number;
}

/** The merge statements, read once per process. */
export class Loader {
  private readonly merges: MergeStatement[] = parseMerge(sqlFiles('merge'));
  private readonly sessionSql = sqlFile('session.sql');
  /** Staging tables the previous batch appended to: emptied (re-created) before the next one. */
  private dirtyStaging = new Set<StagingTable>();
  /** Work tables (w_*) that may still hold an earlier batch's rows. */
  private filled = new Set<string>();
  private stored: StoredKeys | null = null;

  constructor(private readonly db: Db) {}

  /** What the warehouse holds per replaced table, as this loader knows it (kept across a reopen). */
  get storedKeys(): StoredKeys | null {
    return this.stored;
  }

  /**
   * Creates the temp staging tables, batch macros and (empty) work tables on this connection.
   * `keys`: those of a loader on an earlier connection of this process, which nobody else
   * has written since (the writer lock), instead of reading them again.
   */
  async prepare(keys: StoredKeys | null = null): Promise<void> {
    await this.db.run(stagingDdl(STAGING_TABLES));
    await this.db.run(this.sessionSql);
    // Every work table exists from the start, so a statement may read one a batch skipped.
    const creates = this.merges.filter((m) => m.verb === 'creates').map((m) => m.sql);
    await this.db.run(creates.join('\n'));
    this.stored = keys ?? (await this.db.exclusive((c) => StoredKeys.read(c)));
  }

  /**
   * Stages the batch with the appender (outside the transaction: temp tables are private to
   * this connection and not durable), then applies the merges that have input and the
   * progress marks in ONE transaction: either all of the batch is in the warehouse, or none.
   */
  async load(batch: LoadBatch, loadedAt: Date): Promise<LoadResult> {
    let staged: ReturnType<typeof stageBatch>;
    try {
      staged = stageBatch(batch);
    } catch (err) {
      throw toWarehouseError(err, `load of run ${batch.runId} refused`, this.db.path);
    }
    const invalidItems = staged.stg_quarantine.cols[1]!.filter((endpoint) => endpoint === 'loader').length;
    const nonEmpty = new Set<string>(STAGING_TABLES.filter((t) => staged[t].length > 0));
    return this.db.exclusive(async (c) => {
      try {
        if (this.dirtyStaging.size > 0) await c.run(stagingDdl([...this.dirtyStaging]));
        this.dirtyStaging = new Set(STAGING_TABLES.filter((t) => staged[t].length > 0));
        for (const t of this.dirtyStaging) await appendRows(c, t, columnTypes(t), staged[t]);
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
          // One round trip for the whole transaction body: every await is a turn of the event
          // loop, which is busy with the fetch side while a sync runs.
          const counts = await this.applyAndCount(c, plan, batch.runId, loadedAt);
          await c.run('COMMIT');
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
   * The batch's run id and load time (the variables behind batch_run() and batch_at(), see
   * sql/session.sql), BEGIN, the planned merges, then the rows per table carrying this
   * batch's load time, in one multi-statement call (its result is the last statement's).
   * Tables no statement wrote are 0 without a scan. The load time is inlined as a literal
   * (an ISO string we made); the run id is quoted as an SQL string literal.
   */
  private async applyAndCount(
    c: DuckDBConnection,
    plan: BatchPlan,
    runId: string,
    loadedAt: Date,
  ): Promise<Record<string, number>> {
    const counted = Object.keys(LOAD_TIME_COLUMN);
    const counts = Object.fromEntries(counted.map((t) => [t, 0]));
    const arms = counted.filter((t) => plan.writes.has(t));
    const at = `'${loadedAt.toISOString()}'`;
    const countSql = loadCountsSql(arms, loadedAt);
    const vars =
      `SET VARIABLE fragsync_batch_run = '${runId.replaceAll("'", "''")}';\n` +
      `SET VARIABLE fragsync_batch_at = ${at}::TIMESTAMPTZ;`;
    const body = [vars, 'BEGIN TRANSACTION;', plan.sql, countSql].filter((x) => x.length > 0).join('\n');
    if (arms.length === 0) {
      await c.run(body);
      return counts;
    }
    for (const r of await rows<{ t: string; n: number }>(c, body)) counts[r.t] = Number(r.n);
    return counts;
  }
}
