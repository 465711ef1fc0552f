import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { ThreadWarehouse } from '../warehouse/thread/remote.ts';
import { WriterLock } from '../warehouse/writer-lock.ts';

/**
 * The first step of opening a run: its id, its writer lock and the open warehouse. Apart from
 * open-run.ts, and importing nothing of DuckDB, so that `fragsync sync` can start it before it
 * loads the rest of the sync and connects to Redis: the loader thread's start (its modules,
 * DuckDB, the file, the migrations) was the longest step outside the fetch (2.5 s at 20k under
 * load, docs/benchmarks.md, session 10), and it needs nothing the command still prepares.
 * No request can leave before the run has it: openRun awaits it, then replays the journal and
 * seeds the day's spend as before.
 */
export interface OpenedWarehouse {
  runId: string;
  started: Date;
  /** The run's logger (its id on every line). */
  log: Logger;
  warehouse: WarehouseHandle;
  writer: WriterLock;
  /** The file, if this opening created it: a run that never starts leaves none behind. */
  created: string | null;
}

export async function openWarehouse(config: Config, log: Logger): Promise<OpenedWarehouse> {
  // The service address and the key first: nothing is opened without them.
  requireService(config);
  const started = new Date();
  const runId = newRunId(started);
  const runLog = log.child({ runId });
  // Held for the whole run, while the file itself is closed whenever nothing is written:
  // a second sync is refused here, analysts may read in between (see writer-lock.ts).
  const writer = WriterLock.acquire(config.dbPath, runId);
  // Under the writer lock: no other sync can create the file meanwhile.
  const created = existsSync(config.dbPath) ? null : config.dbPath;
  try {
    const opts = { logger: runLog, releaseIdleMs: config.loader.releaseIdleMs };
    // In-thread, DuckDB is loaded only now: with the thread, the fetching thread never loads it.
    const warehouse = config.loader.thread
      ? await ThreadWarehouse.open(config.dbPath, opts)
      : await (await import('../warehouse/warehouse.ts')).Warehouse.open(config.dbPath, opts);
    return { runId, started, log: runLog, warehouse, writer, created };
  } catch (err) {
    writer.release();
    throw err;
  }
}

/**
 * Closes a warehouse opened for a run that never started (the command failed or was
 * interrupted before it), removes it if this opening created it (an unreachable Redis must not
 * leave an empty warehouse behind), and lets go of its lock. A failed opening has nothing to close.
 */
export async function abandonWarehouse(opening: Promise<OpenedWarehouse>): Promise<void> {
  const opened = await opening.catch(() => null);
  if (!opened) return;
  await opened.warehouse.close().catch(() => undefined);
  const file = opened.created;
  if (file) for (const f of [file, `${file}.wal`]) rmSync(f, { force: true });
  opened.writer.release();
}

function requireService(config: Config): asserts config is Config & { baseUrl: string; apiKey: string } {
  if (!config.baseUrl)
    throw new ConfigError(
      'config: baseUrl is required (--base-url or FRAGSYNC_BASE_URL); fragsync never guesses the service address',
    );
  if (!config.apiKey)
    throw new ConfigError('config: the API key is missing: set the FRAGSYNC_API_KEY environment variable');
}

/** `run-<UTC yyyymmddhhmmss>-<8 hex>`: sorts by start time, unique across hosts. */
export function newRunId(started: Date): string {
  const stamp = started
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14);
  return `run-${stamp}-${randomUUID().slice(0, 8)}`;
}
