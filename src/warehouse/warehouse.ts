import { dirname, resolve } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import type pino from 'pino';
import { ConfigError } from '../errors.ts';
import { ensureWritableDir } from '../util/writable-dir.ts';
import { Db, WarehouseError, toWarehouseError } from './db.ts';
import { exportParquet, type ExportResult } from './export.ts';
import { Loader, type LoadResult } from './loader.ts';
import { appliedVersions, createViews, latestVersion, migrate } from './migrations.ts';
import { readJournal } from './journal.ts';
import type { LoadBatch, ProgressMark } from '../domain/items.ts';
import type { RunStatus } from '../domain/run.ts';
import type { SyncState } from './state-types.ts';
import type { WarehouseHandle } from './handle.ts';
import { streamResult, type ResultSink } from './result-stream.ts';
import { readSyncState } from './sync-state.ts';
import { sqlFile } from './sql-files.ts';

export type { LoadResult } from './loader.ts';

export interface OpenOptions {
  logger?: pino.Logger;
  readOnly?: boolean;
}

/**
 * The DuckDB warehouse: the only writer of the file. Every call is serialized on one
 * connection (see Db). Another process cannot open the file while this one has it open.
 */
export class Warehouse implements WarehouseHandle {
  private lastLoadAtMs = 0;

  private constructor(
    private readonly db: Db,
    private readonly loader: Loader | null,
    private readonly logger: pino.Logger | undefined,
  ) {}

  static async open(path: string, opts: OpenOptions = {}): Promise<Warehouse> {
    const file = resolve(path);
    const readOnly = opts.readOnly ?? false;
    if (!readOnly) ensureWritableDir(dirname(file), 'dbPath');
    const db = await Db.open(file, readOnly).catch((err: unknown) => {
      // A file that is not a warehouse (a folder, another kind of file, one it may not
      // read): the user's setup, like a folder that cannot be written. A lock or a full
      // disk keep their own errors.
      if (err instanceof WarehouseError && err.code === 'WAREHOUSE')
        throw new ConfigError(`cannot use ${file} (dbPath): ${err.message}`, { key: 'dbPath' });
      throw err;
    });
    try {
      if (readOnly) {
        const have = await appliedVersions(db);
        if (have.length < latestVersion()) {
          throw new WarehouseError(
            'WAREHOUSE',
            `${file} has schema version ${have.length}, this program needs ${latestVersion()}: open it once read-write to upgrade`,
            { path: file },
          );
        }
        return new Warehouse(db, null, opts.logger);
      }
      const applied = await migrate(db);
      await createViews(db);
      if (applied.length > 0) opts.logger?.info({ applied, path: file }, 'warehouse migrations applied');
      const loader = new Loader(db);
      await loader.prepare();
      return new Warehouse(db, loader, opts.logger);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw toWarehouseError(err, 'cannot open warehouse', file);
    }
  }

  private writable(what: string): Loader {
    if (!this.loader) throw new WarehouseError('WAREHOUSE', `${what}: warehouse opened read-only`);
    return this.loader;
  }

  /** Applies one batch in one transaction; see loader.ts and sql/merge/ for the semantics. */
  async load(batch: LoadBatch): Promise<LoadResult> {
    const loader = this.writable('load');
    // Each batch gets a distinct load time: rows are attributed to their batch by it.
    const nowMs = Math.max(Date.now(), this.lastLoadAtMs + 1);
    this.lastLoadAtMs = nowMs;
    const started = performance.now();
    const result = await loader.load(batch, new Date(nowMs));
    this.logger?.debug(
      { runId: batch.runId, items: batch.items.length, ms: Math.round(performance.now() - started) },
      'batch loaded',
    );
    return result;
  }

  /**
   * Applies a journal segment (see journal.ts): one transaction per run whose entries it
   * holds (normally one), `progress` with the last, so the segment counts as loaded only once
   * all of it is. The loader reads the file itself: the fetching thread hands over a path,
   * never the results.
   */
  async loadJournal(path: string, progress: ProgressMark[]): Promise<LoadResult> {
    const total: LoadResult = { counts: {}, invalidItems: 0 };
    const batches = readJournal(path);
    for (const [i, batch] of batches.entries()) {
      if (i === batches.length - 1) batch.progress.push(...progress);
      const result = await this.load(batch);
      for (const [table, n] of Object.entries(result.counts))
        total.counts[table] = (total.counts[table] ?? 0) + n;
      total.invalidItems += result.invalidItems;
    }
    return total;
  }

  async startRun(runId: string, startedAt: Date): Promise<void> {
    this.writable('startRun');
    await this.run(sqlFile('runs/start.sql'), [runId, startedAt.toISOString()]);
  }

  /** Closes a run; its calls and cents are computed from the ledger, never trusted from memory. */
  async finishRun(runId: string, status: RunStatus, finishedAt: Date): Promise<void> {
    this.writable('finishRun');
    const [known] = await this.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM sync_runs WHERE run_id = $1',
      [runId],
    );
    if (!known || known.n === 0)
      throw new WarehouseError('WAREHOUSE', `finishRun: unknown run ${runId}`, { runId });
    await this.run(sqlFile('runs/finish.sql'), [runId, status, finishedAt.toISOString()]);
    await this.run(sqlFile('runs/refresh-late.sql'), [runId]);
  }

  /** Calls and cents of one UTC day across all runs (seeds the governor after a restart). */
  async spendOnDay(dayUtc: string): Promise<{ calls: number; cents: number }> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dayUtc)) {
      throw new WarehouseError('WAREHOUSE', `spendOnDay: expected YYYY-MM-DD, got '${dayUtc}'`);
    }
    const [row] = await this.query<{ calls: number; cents: number }>(sqlFile('runs/spend-on-day.sql'), [
      dayUtc,
    ]);
    return { calls: Number(row?.calls ?? 0), cents: Number(row?.cents ?? 0) };
  }

  syncState(): Promise<SyncState> {
    return this.guard('syncState', () => readSyncState(this.db));
  }

  /** JSON-safe rows (BIGINT as number when safe, else string; dates as ISO-like strings). */
  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.guard('query', () => this.db.all<T>(sql, params as DuckDBValue[]));
  }

  /** An analyst's query, streamed to `sink` chunk by chunk; resolves with its row count. */
  streamQuery(sql: string, sink: ResultSink): Promise<number> {
    return this.guard('query', () => this.db.exclusive((conn) => streamResult(conn, sql, sink)));
  }

  exportParquet(dir: string): Promise<ExportResult> {
    return exportParquet(this.db, dir);
  }

  /**
   * DuckDB checkpoints a written file as it closes, and says nothing if that fails: the data
   * stays in the WAL and nobody learns that the disk is full. The checkpoint is made here
   * first, so such a failure is the one-line DISK_FULL error (the file still closes).
   */
  async close(): Promise<void> {
    const failure = this.loader
      ? await this.guard('checkpoint', () => this.db.run('CHECKPOINT')).then(
          () => null,
          (err: unknown) => err,
        )
      : null;
    await this.db.close();
    if (failure) throw failure;
  }

  private run(sql: string, params: unknown[]): Promise<void> {
    return this.guard('write', () => this.db.run(sql, params as DuckDBValue[]));
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toWarehouseError(err, what, this.db.path);
    }
  }
}
