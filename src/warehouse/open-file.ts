import type pino from 'pino';
import { Db } from './db.ts';
import { WarehouseError, toWarehouseError } from './warehouse-error.ts';
import { Loader, type LoaderCarry } from './loader.ts';
import { describeHolder, lockHolder } from './writer-lock.ts';
import type { RunBaseline } from './baseline-file.ts';

export interface OpenFileOptions {
  readOnly: boolean;
  /** How long to keep trying while another process has the file open, in ms. */
  retryMs: number;
  logger?: pino.Logger;
  /** Logged once when the file is found held (a writer waiting for analysts to close it). */
  waitingMessage?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens the DuckDB file, retrying while another process holds it: a sync closes the file
 * whenever it has nothing to write, so a reader that meets it mid-batch gets in a moment
 * later, and a sync that meets an analyst's open file gets in once the analyst closes it
 * (its results wait in the journal meanwhile). After `retryMs` the refusal is one line
 * naming the sync that holds the file, when fragsync's writer lock says which.
 */
export async function openDbFile(file: string, opts: OpenFileOptions): Promise<Db> {
  const deadline = Date.now() + opts.retryMs;
  let delayMs = 50;
  let told = false;
  for (;;) {
    try {
      return await Db.open(file, opts.readOnly);
    } catch (err) {
      if (!(err instanceof WarehouseError) || err.code !== 'WAREHOUSE_LOCKED') throw err;
      if (Date.now() + delayMs > deadline) throw heldBy(file, err, opts.retryMs);
      if (!told && opts.waitingMessage) {
        told = true;
        opts.logger?.warn({ path: file, err: err.message }, opts.waitingMessage);
      }
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, 1000);
    }
  }
}

/** The refusal, saying which sync holds the file and when it lets readers in. */
function heldBy(file: string, err: WarehouseError, retriedMs: number): WarehouseError {
  const h = lockHolder(file);
  // Our own lock (a sync meeting an analyst's open file): DuckDB's message names the process.
  if (!h || h.pid === process.pid) return err;
  const when =
    h.state === 'paused' && h.pausedUntil
      ? `it is pausing for quota until ${h.pausedUntil} and closes the file in a moment`
      : 'it closes the file during quota pauses and whenever it has had nothing to write for a few seconds';
  return new WarehouseError(
    'WAREHOUSE_LOCKED',
    `${file} is being written by ${describeHolder(h)} (tried for ${(retriedMs / 1000).toFixed(0)} s); ${when}: try again shortly`,
    { path: file, runId: h.runId, pid: h.pid },
    err,
  );
}

/** The open file: its connection, and the loader prepared on it (null when read-only). */
export interface OpenFile {
  db: Db;
  loader: Loader | null;
}

/** How long a writer that let go of the file waits for analysts to close it again, in ms. */
const READERS_WAIT_MS = 15 * 60_000;

/**
 * Opens the file again after a release: migrated and prepared already, so only the
 * connection's staging tables are made again; the stored keys are kept (nobody else wrote
 * meanwhile: the writer lock), which saves about 70 to 500 ms on a 5k warehouse. Analysts
 * reading meanwhile are waited for.
 */
export async function reopenWriter(
  file: string,
  carried: LoaderCarry | null,
  logger: pino.Logger | undefined,
): Promise<OpenFile> {
  const started = performance.now();
  const db = await openDbFile(file, {
    readOnly: false,
    retryMs: READERS_WAIT_MS,
    logger,
    waitingMessage: 'the warehouse is open in another process (an analyst?): waiting for it to close',
  });
  try {
    const loader = new Loader(db);
    // The run's baseline is not read back here: only the summary reads it (baseline-file.ts).
    await loader.prepare(carried);
    logger?.debug({ ms: Math.round(performance.now() - started) }, 'warehouse reopened');
    return { db, loader };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw toWarehouseError(err, 'cannot open warehouse', file);
  }
}

/**
 * DuckDB checkpoints a written file as it closes, and says nothing if that fails: the data
 * stays in the WAL and nobody learns that the disk is full. The checkpoint is made here
 * first, so such a failure is the one-line DISK_FULL error (the file still closes).
 */
export async function closeFile(
  f: OpenFile,
  file: string,
  final = true,
  baseline: RunBaseline | null = null,
): Promise<void> {
  // A writer's run baseline outlives the connection in a file (baseline-file.ts), unless the
  // warehouse closes for good.
  const kept =
    f.loader && baseline
      ? await baseline.beforeClose(f.db, final).then(
          () => null,
          (err: unknown) => toWarehouseError(err, 'keeping the run baseline', file),
        )
      : null;
  const failure = f.loader
    ? await f.db.run('CHECKPOINT').then(
        () => null,
        (err: unknown) => toWarehouseError(err, 'checkpoint', file),
      )
    : null;
  await f.db.close();
  if (failure ?? kept) throw failure ?? kept;
}
