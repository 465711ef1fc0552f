import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type pino from 'pino';
import { ConfigError, FragsyncError, type ErrorCode } from '../../errors.ts';
import { ensureWritableDir } from '../../util/writable-dir.ts';
import { WarehouseError } from '../warehouse-error.ts';
import type { ExportResult } from '../export.ts';
import type { RunIntent, WarehouseHandle } from '../handle.ts';
import type { LoadResult } from '../loader.ts';
import type { LoadBatch, ProgressMark } from '../../domain/items.ts';
import type { SyncState } from '../state-types.ts';
import type { RecordedStatus } from '../../domain/run.ts';
import type { RunChanges } from '../run-changes.ts';
import { refuseIfLocked } from '../writer-lock.ts';
import type { Call, FromThread, ThreadInit, WireError } from './protocol.ts';

/** Defined (true) in the build only (scripts/build.mjs): the code runs as plain JavaScript. */
declare const FRAGSYNC_BUILD: boolean | undefined;
/**
 * The thread's code: the build's own bundle of it, or from the TypeScript sources entry.mjs,
 * which registers tsx first (a thread starts with Node's plain module loader).
 */
const ENTRY =
  typeof FRAGSYNC_BUILD === 'undefined'
    ? new URL('./entry.mjs', import.meta.url)
    : new URL('../../../dist/loader-thread.js', import.meta.url);

function fromWire(e: WireError): Error {
  if (e.code === 'WAREHOUSE' || e.code === 'WAREHOUSE_LOCKED' || e.code === 'DISK_FULL')
    return new WarehouseError(e.code, e.message, e.context);
  if (e.code === 'CONFIG_INVALID') return new ConfigError(e.message, e.context);
  if (e.fragsync && e.code)
    return new FragsyncError(e.code as ErrorCode, e.message, { context: e.context, transient: e.transient });
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/**
 * A Warehouse in a worker thread, behind the same calls (WarehouseHandle). The sync's main
 * thread keeps the requests in flight; DuckDB, row staging, validation and the merges run
 * on the other core. Arguments and results are copied between threads (structured clone),
 * which is why the load stage hands over journal lines (strings) rather than objects.
 */
export class ThreadWarehouse implements WarehouseHandle {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;
  private readonly exited: Promise<void>;
  migrated: readonly number[] = [];

  private constructor(
    private readonly worker: Worker,
    readonly path: string,
  ) {
    this.exited = new Promise((done) => worker.once('exit', () => done()));
  }

  static async open(
    path: string,
    opts: { logger?: pino.Logger; releaseIdleMs?: number | null } = {},
  ): Promise<ThreadWarehouse> {
    const file = resolve(path);
    // Before a thread is started for it (the thread's Warehouse.open checks again).
    ensureWritableDir(dirname(file), 'dbPath');
    refuseIfLocked(file, 'cannot open warehouse');
    const init: ThreadInit = {
      path: file,
      logLevel: opts.logger?.level ?? 'silent',
      releaseIdleMs: opts.releaseIdleMs ?? null,
    };
    const worker = new Worker(ENTRY, {
      workerData: init,
      // A ceiling on the thread's heap makes V8 collect before it fills with garbage: how far
      // it lets the heap grow past its live set after a full collection depends on the
      // ceiling (the default here is about 4 GiB). The live set is 15-35 MiB; without the
      // ceiling the heap reached 130-160 MiB in a 20k sync, with it 30-60. The young
      // generation is 16 MiB (was 64: fewer scavenges of staged rows, but 48 MiB of RSS held
      // by an often empty space). docs/benchmarks.md, session 9.
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 512 },
    });
    const remote = new ThreadWarehouse(worker, file);
    await new Promise<void>((ready, failed) => {
      worker.on('message', (m: FromThread) => {
        if (m.type === 'ready') {
          remote.migrated = m.migrated;
          ready();
        } else if (m.type === 'openFailed') failed(fromWire(m.error));
        else remote.receive(m, opts.logger);
      });
      worker.on('error', (err) => {
        remote.fail(err);
        failed(remote.dead);
      });
      worker.on('exit', (code) => {
        remote.fail(new Error(`exited with code ${code}`));
        failed(remote.dead);
      });
    });
    return remote;
  }

  private receive(m: FromThread, logger: pino.Logger | undefined): void {
    if (m.type === 'log') {
      if (!logger) return;
      const { level, msg, ...fields } = JSON.parse(m.line) as { level: number; msg?: string };
      const label = logger.levels.labels[level] as pino.Level | undefined;
      if (label) logger[label](fields, msg);
    } else if (m.type === 'reply') {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(fromWire(m.error));
    }
  }

  /** The thread is gone: every call waiting and every later call fails with one clear line. */
  private fail(cause: Error): void {
    if (this.dead) return;
    this.dead = new WarehouseError('WAREHOUSE', `loader thread stopped: ${cause.message}`, {
      path: this.path,
    });
    for (const p of this.pending.values()) p.reject(this.dead);
    this.pending.clear();
  }

  private call<T>(method: keyof WarehouseHandle, args: unknown[]): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<T>((res, rej) => {
      this.pending.set(id, { resolve: res as (v: unknown) => void, reject: rej });
      this.worker.postMessage({ id, method, args } satisfies Call);
    });
  }

  load(batch: LoadBatch): Promise<LoadResult> {
    return this.call('load', [batch]);
  }

  loadJournal(path: string, progress: ProgressMark[]): Promise<LoadResult> {
    return this.call('loadJournal', [path, progress]);
  }

  startRun(runId: string, startedAt: Date, intent?: RunIntent): Promise<void> {
    return this.call('startRun', [runId, startedAt, intent]);
  }

  finishRun(
    runId: string,
    status: RecordedStatus,
    finishedAt: Date,
    clockOffsetMs?: number | null,
  ): Promise<void> {
    return this.call('finishRun', [runId, status, finishedAt, clockOffsetMs]);
  }

  spendOnDay(dayUtc: string): Promise<{ calls: number; cents: number }> {
    return this.call('spendOnDay', [dayUtc]);
  }

  syncState(): Promise<SyncState> {
    return this.call('syncState', []);
  }

  takeBaseline(): Promise<void> {
    return this.call('takeBaseline', []);
  }

  runChanges(): Promise<RunChanges | null> {
    return this.call('runChanges', []);
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.call('query', [sql, params]);
  }

  exportParquet(dir: string): Promise<ExportResult> {
    return this.call('exportParquet', [dir]);
  }

  release(): Promise<void> {
    return this.call('release', []);
  }

  /** Closes the warehouse in its thread, then waits for the thread to end. */
  async close(): Promise<void> {
    if (this.dead) return;
    try {
      await this.call('close', []);
    } finally {
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      await this.worker.terminate();
    }
  }
}
