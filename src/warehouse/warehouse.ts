import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DuckDBValue } from '@duckdb/node-api';
import type pino from 'pino';
import { ConfigError } from '../errors.ts';
import { ensureWritableDir } from '../util/writable-dir.ts';
import type { Db } from './db.ts';
import { WarehouseError, toWarehouseError } from './warehouse-error.ts';
import { closeFile, openDbFile, reopenWriter, type OpenFile } from './open-file.ts';
import { ReopenGate } from './reopen-gate.ts';
import { RunBaseline } from './baseline-file.ts';
import type { RunChanges } from './run-changes.ts';
import { refuseIfLocked } from './writer-lock.ts';
import { exportParquet, type ExportResult } from './export.ts';
import { Loader, type LoaderCarry, type LoadResult } from './loader.ts';
import { appliedVersions, createViews, latestVersion, migrate } from './migrations.ts';
import { readJournal } from './journal.ts';
import type { LoadBatch, ProgressMark } from '../domain/items.ts';
import type { RecordedStatus } from '../domain/run.ts';
import type { SyncState } from './state-types.ts';
import type { RunIntent, WarehouseHandle } from './handle.ts';
import { streamResult, type ResultSink } from './result-stream.ts';
import { readSyncState } from './sync-state.ts';
import { openRunRows, closeRunRows } from './run-rows.ts';
import { spendOnServiceDay } from './ledger-day.ts';

export type { LoadResult } from './loader.ts';

export interface OpenOptions {
  logger?: pino.Logger;
  readOnly?: boolean;
  /** How long to keep trying while another process has the file open, in ms (default 3 s). */
  lockedRetryMs?: number;
  /**
   * Writable only: close the file after this long without a call, in ms, so that analysts
   * can open it; the next call opens it again. null (the default): hold it until close().
   */
  releaseIdleMs?: number | null;
  /**
   * Writable only, for tests: the loader's DuckDB memory limit (MB) to start at instead of
   * sql/session.sql's, kept across a release as a raised one is (a batch made to run out of it).
   */
  memoryLimitMb?: number;
  /**
   * Writable only: refuse a file no sync has written (no migration applied) instead of making
   * it a warehouse: only `sync` creates one (`quarantine --revalidate` wrote its tables into
   * any DuckDB file it was given).
   */
  existing?: boolean;
}

const LOCKED_RETRY_MS = 3000;

/**
 * The DuckDB warehouse: the only writer of the file. Every call is serialized on one
 * connection (see Db). Another process cannot open the file while this one has it open, so
 * a writer can let go of it between calls (`release`, or by itself after `releaseIdleMs`)
 * and opens it again at the next call; a sync's writer lock (writer-lock.ts) keeps other
 * writers out meanwhile.
 */
export class Warehouse implements WarehouseHandle {
  private lastLoadAtMs = 0;
  private readonly gate: ReopenGate<OpenFile>;
  /** The loader's stored keys and memory limit, kept across a release: nobody else writes meanwhile. */
  private carried: LoaderCarry | null = null;
  /** Migrations this opening applied (none for a read-only one): the run logs them once it starts. */
  migrated: readonly number[] = [];
  /** The run's baseline, a writer's only (baseline-file.ts): kept across a release, read back by runChanges. */
  readonly baseline: RunBaseline | null;

  private constructor(
    private readonly file: string,
    first: OpenFile,
    private readonly logger: pino.Logger | undefined,
    releaseIdleMs: number | null,
  ) {
    this.carried = first.loader?.carried ?? null;
    this.baseline = first.loader ? new RunBaseline(file) : null;
    this.gate = new ReopenGate(first, {
      open: () => reopenWriter(this.file, this.carried, this.logger),
      close: (f, final) => {
        if (f.loader) this.carried = f.loader.carried;
        return closeFile(f, this.file, final, this.baseline);
      },
      idleReleaseMs: first.loader ? releaseIdleMs : null,
      onIdleReleaseError: (err) => this.logger?.warn({ err }, 'closing the idle warehouse failed'),
    });
  }

  static async open(path: string, opts: OpenOptions = {}): Promise<Warehouse> {
    const file = resolve(path);
    const readOnly = opts.readOnly ?? false;
    if (!readOnly) {
      ensureWritableDir(dirname(file), 'dbPath');
      refuseIfLocked(file, 'cannot open warehouse');
    }
    const retryMs = opts.lockedRetryMs ?? LOCKED_RETRY_MS;
    // A warehouse this open creates and cannot finish (a full disk, a file-size limit) is
    // removed, not left half-made: DuckDB could not open such a file again.
    const fresh = !readOnly && !existsSync(file);
    const db = await openDbFile(file, { readOnly, retryMs }).catch((err: unknown) => {
      if (fresh) unmade(file, err);
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
          // The user's to act on (exit 2), and only a sync can: no read-only command writes.
          throw new ConfigError(
            `${file} has schema version ${have.length}, this fragsync needs ${latestVersion()}: ` +
              'the next `fragsync sync` upgrades it (read-only commands never write the file)',
            { key: 'dbPath' },
          );
        }
        return new Warehouse(file, { db, loader: null }, opts.logger, null);
      }
      if (opts.existing && (await appliedVersions(db)).length === 0)
        throw new ConfigError(`${file} is not a fragsync warehouse: no sync has written it`, {
          key: 'dbPath',
        });
      const applied = await migrate(db);
      await createViews(db);
      const loader = new Loader(db, opts.memoryLimitMb);
      await loader.prepare();
      const wh = new Warehouse(file, { db, loader }, opts.logger, opts.releaseIdleMs ?? null);
      wh.migrated = applied;
      return wh;
    } catch (err) {
      await db.close().catch(() => undefined);
      if (fresh) unmade(file, err);
      throw err instanceof ConfigError ? err : toWarehouseError(err, 'cannot open warehouse', file);
    }
  }

  /** Runs `fn` on the open file (opening it again if it was released). */
  private withDb<T>(what: string, fn: (db: Db) => Promise<T>): Promise<T> {
    return this.gate.use(async (f) => {
      try {
        return await fn(f.db);
      } catch (err) {
        throw toWarehouseError(err, what, this.file);
      }
    });
  }

  /** Same, for a write: refused on a read-only warehouse. */
  private withLoader<T>(what: string, fn: (loader: Loader, db: Db) => Promise<T>): Promise<T> {
    return this.gate.use(async (f) => {
      if (!f.loader) throw new WarehouseError('WAREHOUSE', `${what}: warehouse opened read-only`);
      try {
        return await fn(f.loader, f.db);
      } catch (err) {
        throw toWarehouseError(err, what, this.file);
      }
    });
  }

  /** Lets go of the file now (after the calls under way); the next call opens it again. */
  release(): Promise<void> {
    return this.gate.release();
  }

  /** Applies one batch in one transaction; see loader.ts and sql/merge/ for the semantics. */
  load(batch: LoadBatch): Promise<LoadResult> {
    return this.withLoader('load', (loader) => this.loadWith(loader, batch));
  }

  private async loadWith(loader: Loader, batch: LoadBatch): Promise<LoadResult> {
    // Each batch gets a distinct load time: rows are attributed to their batch by it.
    const nowMs = Math.max(Date.now(), this.lastLoadAtMs + 1);
    this.lastLoadAtMs = nowMs;
    const started = performance.now();
    const result = await loader.load(batch, new Date(nowMs));
    const raised = result.memoryLimitRaisedMb;
    // Loud: the sync now holds that much more memory (loader.ts, MEMORY_LIMIT_CEILING_MB).
    if (raised)
      this.logger?.warn(
        { memoryLimitMb: raised },
        `DuckDB ran out of memory in a batch: limit raised to ${raised}MB, batch loaded whole`,
      );
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
  loadJournal(path: string, progress: ProgressMark[]): Promise<LoadResult> {
    return this.withLoader('load', (loader) => this.loadJournalWith(loader, path, progress));
  }

  private async loadJournalWith(loader: Loader, path: string, progress: ProgressMark[]): Promise<LoadResult> {
    const total: LoadResult = { counts: {}, invalidItems: 0 };
    const batches = readJournal(path);
    for (const [i, batch] of batches.entries()) {
      if (i === batches.length - 1) batch.progress.push(...progress);
      const result = await this.loadWith(loader, batch);
      for (const [table, n] of Object.entries(result.counts))
        total.counts[table] = (total.counts[table] ?? 0) + n;
      total.invalidItems += result.invalidItems;
    }
    return total;
  }

  /** Opens a run's rows (run-rows.ts). */
  startRun(runId: string, startedAt: Date, intent: RunIntent = { mode: 'full', policy: [] }): Promise<void> {
    return this.withLoader('startRun', (_loader, db) => openRunRows(db, runId, startedAt, intent));
  }

  /** Closes a run's rows, its figures from the ledger (run-rows.ts). */
  finishRun(
    runId: string,
    status: RecordedStatus,
    finishedAt: Date,
    clockOffsetMs: number | null = null,
  ): Promise<void> {
    return this.withLoader('finishRun', (_loader, db) =>
      closeRunRows(db, runId, status, finishedAt, clockOffsetMs),
    );
  }

  /** The tables as the run finds them, for runChanges to compare with (run-changes.ts). */
  takeBaseline(): Promise<void> {
    return this.withLoader('takeBaseline', (_loader, db) => this.baseline!.take(db));
  }

  /**
   * What the run did to the tables since takeBaseline, read back from its file if a release
   * let it go, on one connection; null when no baseline was taken. Drops it.
   */
  runChanges(): Promise<RunChanges | null> {
    return this.withLoader('runChanges', (_loader, db) => this.baseline!.changes(db));
  }

  /** Calls and cents of one service UTC day across all runs (seeds the governor after a restart). */
  async spendOnDay(dayUtc: string): Promise<{ calls: number; cents: number }> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(dayUtc)) {
      throw new WarehouseError('WAREHOUSE', `spendOnDay: expected YYYY-MM-DD, got '${dayUtc}'`);
    }
    return spendOnServiceDay(this, dayUtc);
  }

  syncState(): Promise<SyncState> {
    return this.withDb('syncState', (db) => readSyncState(db));
  }

  /** JSON-safe rows (BIGINT as number when safe, else string; dates as ISO-like strings). */
  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.withDb('query', (db) => db.all<T>(sql, params as DuckDBValue[]));
  }

  /** An analyst's query, streamed to `sink` chunk by chunk; resolves with its row count. */
  streamQuery(sql: string, sink: ResultSink): Promise<number> {
    return this.withDb('query', (db) => db.exclusive((conn) => streamResult(conn, sql, sink)));
  }

  exportParquet(dir: string): Promise<ExportResult> {
    return this.gate.use((f) => exportParquet(f.db, dir));
  }

  /** Closes the file (checkpointing a written one first, see closeFile); no call after this. */
  close(): Promise<void> {
    return this.gate.close();
  }
}

/**
 * Removes a warehouse file (and its WAL) that this process began to create and could not
 * finish. Not on a lock error: then another process made the file meanwhile, and it is theirs.
 */
function unmade(file: string, err: unknown): void {
  if (err instanceof WarehouseError && err.code === 'WAREHOUSE_LOCKED') return;
  for (const f of [file, `${file}.wal`]) rmSync(f, { force: true });
}
