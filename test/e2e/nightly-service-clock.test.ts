import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { GroundTruth } from '../../src/simulator/types.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from '../helpers/ground-truth.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A day passes at the service, not on this machine: a full sync, POST advance-day (the
 * service's clock moves a day on, src/simulator/account.ts), then the nightly at once, with
 * nothing aged by hand. It judges ages on the service's clock (the offset the walks' Date
 * headers showed, src/sync/fetch-stage.ts retime), so the day's score moves, new reviews,
 * reformulations and chart snapshots are due and the mirror equals the service's truth.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

/** Fragrances whose score, review count or similar list the day changed. */
function moved(before: GroundTruth, after: GroundTruth): number {
  const old = new Map(before.fragrances.map((f) => [f.id, JSON.stringify(f)]));
  return after.fragrances.filter((f) => old.has(f.id) && old.get(f.id) !== JSON.stringify(f)).length;
}

describe.each([inProcess, bullmq])('nightly on the service clock, $name', (driver) => {
  it('full sync, advance-day over HTTP, nightly at once: the mirror equals the day, api_calls the ledger', async () => {
    const sim = await startSimulator({ fragrances: 120, seed: 23 });
    const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-clock.duckdb`);
    try {
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const before = sim.groundTruth();
      const res = await fetch(`${sim.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      const after = sim.groundTruth();
      expect(after.serviceDate > before.serviceDate).toBe(true);
      // The day moved profiles the nightly can only find by refreshing what is due.
      expect(moved(before, after)).toBeGreaterThan(0);
      const charts = (t: GroundTruth) => JSON.stringify(t.charts);
      expect(charts(after)).not.toBe(charts(before));

      const nightly = await driver.sync(sim, dbPath);
      expect(nightly.status).toBe('completed');
      expect(nightly.mode).not.toBe('full');
      expect(diffTables(truthTables(after), await warehouseTables(dbPath, after.serviceDate))).toEqual({});
      const ours = await warehouseLedger(dbPath);
      expect(ours.calls).toBe(sim.ledger().calls);
      expect(ours.billable).toBe(sim.ledger().cents);
    } finally {
      await sim.close();
    }
  }, 240_000);
});
