import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { Warehouse } from '../warehouse.ts';
import type { WarehouseHandle } from '../handle.ts';
import { toWire, type Call, type FromThread, type ThreadInit } from './protocol.ts';

/**
 * The loader thread: owns the Warehouse (the DuckDB instance, staging, validation, the
 * merges) and answers the opener's calls one message at a time. Warehouse serializes its
 * statements itself, so calls may overlap here as they do in one thread.
 */
const port = parentPort;
if (!port) throw new Error('src/warehouse/thread/worker.ts runs only as a worker thread');
const init = workerData as ThreadInit;
const post = (message: FromThread) => port.postMessage(message);

const logger = pino(
  { level: init.logLevel, base: null, timestamp: false },
  { write: (line: string) => post({ type: 'log', line }) },
);

const METHODS = new Set<keyof WarehouseHandle>([
  'load',
  'loadJournal',
  'startRun',
  'finishRun',
  'spendOnDay',
  'syncState',
  'takeBaseline',
  'runChanges',
  'query',
  'exportParquet',
  'release',
  'close',
]);

let warehouse: Warehouse;
try {
  warehouse = await Warehouse.open(init.path, { logger, releaseIdleMs: init.releaseIdleMs });
  post({ type: 'ready', migrated: warehouse.migrated });
} catch (err) {
  post({ type: 'openFailed', error: toWire(err) });
  port.close();
}

port.on('message', (call: Call) => {
  void (async () => {
    try {
      if (!METHODS.has(call.method as keyof WarehouseHandle))
        throw new Error(`unknown method ${call.method}`);
      const fn = warehouse[call.method as keyof WarehouseHandle] as (...a: unknown[]) => Promise<unknown>;
      const value = await fn.apply(warehouse, call.args);
      post({ type: 'reply', id: call.id, ok: true, value });
    } catch (err) {
      post({ type: 'reply', id: call.id, ok: false, error: toWire(err) });
    } finally {
      if (call.method === 'close') port.close();
    }
  })();
});
