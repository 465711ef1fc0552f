import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
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

describe.each([inProcess, bullmq])('a second nightly the same service day, $name', (driver) => {
  it('buys the walks and nothing else; every similar list stays fetched', async () => {
    const sim = await startSimulator({ fragrances: 150, seed: 1 });
    const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-same-day.duckdb`);
    try {
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
    } finally {
      await sim.close();
    }
  }, 240_000);
});
