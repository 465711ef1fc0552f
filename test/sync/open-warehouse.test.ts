import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { abandonWarehouse, openWarehouse } from '../../src/sync/open-warehouse.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { lockHolder, WriterLock } from '../../src/warehouse/writer-lock.ts';
import { runTestSync, testConfig } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The early opening `fragsync sync` starts before it connects to Redis (SyncDeps.opening),
 * and what giving it up leaves: a run that never starts removes only a file it created, and
 * releases only its own lock.
 */
const log = pino({ level: 'silent' });
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  sim = await startSimulator({ fragrances: 8 });
  dir = await tempDir('fragsync-open-');
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});
const config = (db: string, apiKey?: string) =>
  testConfig({ baseUrl: sim.url, dbPath: join(dir.path, db), ...(apiKey === undefined ? {} : { apiKey }) });

describe('openWarehouse and abandonWarehouse', () => {
  it('a warehouse the opening created is removed with its lock when the run never starts', async () => {
    const c = config('fresh.duckdb');
    const opened = await openWarehouse(c, log);
    expect(opened.created).toBe(c.dbPath);
    expect(lockHolder(c.dbPath)?.runId).toBe(opened.runId);
    await abandonWarehouse(Promise.resolve(opened));
    expect(existsSync(c.dbPath)).toBe(false);
    expect(existsSync(`${c.dbPath}.wal`)).toBe(false);
    expect(lockHolder(c.dbPath)).toBeNull();
  });

  it('a warehouse that existed keeps its data; its lock is released, so the next sync runs', async () => {
    const c = config('kept.duckdb');
    const first = await runTestSync({ baseUrl: sim.url, dbPath: c.dbPath });
    expect(first.status).toBe('completed');
    const opened = await openWarehouse(c, log);
    expect(opened.created).toBeNull();
    await abandonWarehouse(Promise.resolve(opened));
    expect(lockHolder(c.dbPath)).toBeNull();
    const wh = await Warehouse.open(c.dbPath, { readOnly: true });
    try {
      const runs = await wh.query<{ run_id: string }>('SELECT run_id FROM sync_runs');
      expect(runs).toEqual([{ run_id: first.runId }]);
    } finally {
      await wh.close();
    }
    expect((await runTestSync({ baseUrl: sim.url, dbPath: c.dbPath })).status).toBe('completed');
  });

  it("an opening refused by another sync's lock fails, and giving it up leaves that lock alone", async () => {
    const c = config('held.duckdb');
    const other = WriterLock.acquire(c.dbPath, 'run-other');
    try {
      const opening = openWarehouse(c, log);
      await expect(opening).rejects.toThrow(/run-other/);
      await abandonWarehouse(opening);
      expect(lockHolder(c.dbPath)?.runId).toBe('run-other');
      expect(existsSync(c.dbPath)).toBe(false);
    } finally {
      other.release();
    }
  });

  it('without a key nothing is opened: no lock, no file', async () => {
    const c = config('nokey.duckdb', '');
    const opening = openWarehouse(c, log);
    await expect(opening).rejects.toThrow(/API key is missing/);
    await abandonWarehouse(opening);
    expect(existsSync(c.dbPath)).toBe(false);
    expect(existsSync(`${c.dbPath}.lock`)).toBe(false);
  });
});
