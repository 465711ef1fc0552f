import { appendRows, rows, toWarehouseError, type Db } from './db.ts';
import type { LoadBatch } from './rows.ts';
import { sqlFile, sqlFiles, type SqlFile } from './sql-files.ts';
import { stageBatch } from './stage-rows.ts';
import { STAGING_TABLES, columnTypes, stagingDdl } from './staging.ts';

export interface LoadResult {
  /** Rows the batch wrote (inserted or replaced) per table; 0 when a replay changed nothing new. */
  counts: Record<string, number>;
  /** Items that failed validation and went to the quarantine table instead. */
  invalidItems: number;
}

/** The merge statements, read once per process. */
export class Loader {
  private readonly merges: SqlFile[] = sqlFiles('merge');
  private readonly countsSql = sqlFile('load-counts.sql');
  private readonly sessionSql = sqlFile('session.sql');

  constructor(private readonly db: Db) {}

  /** Creates the temp staging tables and batch macros on this connection. */
  async prepare(): Promise<void> {
    await this.db.run(stagingDdl());
    await this.db.run(this.sessionSql);
  }

  /**
   * Stages the batch with the appender (outside the transaction: temp tables are private to
   * this connection and not durable), then applies every merge and the progress marks in
   * ONE transaction: either all of the batch is in the warehouse, or none of it.
   */
  async load(batch: LoadBatch, loadedAt: Date): Promise<LoadResult> {
    let staged: ReturnType<typeof stageBatch>;
    try {
      staged = stageBatch(batch, loadedAt);
    } catch (err) {
      throw toWarehouseError(err, `load of run ${batch.runId} refused`, this.db.path);
    }
    const invalidItems = staged.stg_quarantine.filter((r) => r[1] === 'loader').length;
    return this.db.exclusive(async (c) => {
      try {
        await c.run(stagingDdl());
        for (const t of STAGING_TABLES) await appendRows(c, t, columnTypes(t), staged[t]);
        await c.run('BEGIN TRANSACTION');
        try {
          for (const m of this.merges) await c.run(m.sql);
          const counted = await rows<{ t: string; n: number }>(c, this.countsSql);
          await c.run('COMMIT');
          return { counts: Object.fromEntries(counted.map((r) => [r.t, Number(r.n)])), invalidItems };
        } catch (err) {
          await c.run('ROLLBACK');
          throw err;
        }
      } catch (err) {
        throw toWarehouseError(err, `load of run ${batch.runId} failed`, this.db.path);
      }
    });
  }
}
