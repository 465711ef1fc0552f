import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { bullmq, inProcess, type Driver } from '../helpers/drivers.ts';
import { expectExact } from '../helpers/exact.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A second nightly on the same service day buys only the walks. A similar list two signals
 * named in one nightly was read after the first and marked stale by the second: its job id
 * was taken, so it stayed never fetched and the next nightly bought it again (150
 * fragrances, seed 1: 16 lists, 16 cents, in process; 10 on BullMQ).
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

/** The latest run's calls per endpoint template, from api_calls, and lists never fetched. */
async function lastRun(dbPath: string): Promise<{ calls: Record<string, number>; never: number }> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const rows = await wh.query<{ endpoint: string; n: number }>(
      `SELECT endpoint, count(*)::INTEGER AS n FROM api_calls
       WHERE run_id = (SELECT run_id FROM sync_runs ORDER BY started_at DESC LIMIT 1) GROUP BY endpoint`,
    );
    const [f] = await wh.query<{ never: number }>(
      "SELECT never_fetched AS never FROM freshness WHERE entity = 'fragrance' AND dataset = 'similar'",
    );
    return { calls: Object.fromEntries(rows.map((r) => [r.endpoint, Number(r.n)])), never: Number(f?.never) };
  } finally {
    await wh.close();
  }
}

const WALKS = ['/v1/fragrances', '/v1/notes', '/v1/accords', '/v1/charts'];

/** One case on a simulator of its own (closed after) and this driver's warehouse file `name`. */
async function onSim(
  driver: Driver,
  options: SimulatorOptions,
  name: string,
  body: (sim: Simulator, dbPath: string) => Promise<void>,
): Promise<void> {
  const sim = await startSimulator(options);
  try {
    await body(sim, join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-${name}.duckdb`));
  } finally {
    await sim.close();
  }
}

describe.each([inProcess, bullmq])('a second nightly the same service day, $name', (driver) => {
  it('buys the walks and nothing else; every similar list stays fetched', async () => {
    await onSim(driver, { fragrances: 150, seed: 1 }, 'same-day', async (sim, dbPath) => {
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const res = await fetch(`${sim.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const first = await lastRun(dbPath);
      expect(first.calls['/v1/fragrances/{id}/similar']).toBeGreaterThan(20);
      expect(first.never).toBe(0);
      await expectExact(sim, dbPath);

      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const again = await lastRun(dbPath);
      const bought = Object.keys(again.calls).filter((e) => !WALKS.includes(e));
      expect(bought).toEqual([]);
      expect(again.never).toBe(0);
      await expectExact(sim, dbPath);
    });
  }, 240_000);
});

/**
 * A completed nightly after a `--max-cents`-stopped one owes nothing. The capped run stored
 * the day's releases' guessed similar lists as owed (no probe verdict yet). The next nightly
 * reads lists never fetched before any profile is due, so a reformulated fragrance's own list
 * was read before its profile showed the change: its probes waited for a read that never
 * came (and one picked from a list read in the run already was never bought), and its guessed
 * lists (16 at 100 fragrances, seed 1) were stored owed by a run labelled completed. The same
 * service day's nightly then bought them again (32 cents, no change found), and `freshness`
 * showed them never fetched.
 */
describe.each([inProcess, bullmq])('a completed nightly after a capped one, $name', (driver) => {
  it('leaves no similar list owed: the same-day nightly buys only the walks', async () => {
    await onSim(driver, { fragrances: 100, seed: 1 }, 'after-cap', async (sim, dbPath) => {
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      sim.advanceDay();
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      sim.advanceDay();
      expect((await driver.sync(sim, dbPath, { 'max-cents': '20' })).status).toBe('budget_exhausted');

      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      expect((await lastRun(dbPath)).never).toBe(0);
      await expectExact(sim, dbPath);

      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const again = await lastRun(dbPath);
      expect(Object.keys(again.calls).filter((e) => !WALKS.includes(e))).toEqual([]);
      expect(again.never).toBe(0);
      await expectExact(sim, dbPath);
    });
  }, 120_000);
});
