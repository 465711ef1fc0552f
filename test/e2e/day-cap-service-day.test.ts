import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The per-day cent cap counts the service's UTC day (its Date header), the day the provider
 * bills, across runs. After POST /_sim/advance-day the service is a day ahead of this
 * machine: a nightly sees it (and records the offset, sync_run_clocks), and a later run with
 * --max-cents-per-day C may spend what C leaves of that service day. Before, a run counted
 * this machine's day until its first answer, with that day's ledger (the full sync of the
 * service's day before included): it was refused at its first call, having spent nothing.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

describe.each([inProcess, bullmq])('the day cap on the service day, $name', (driver) => {
  it("a capped run after a nightly on the service's new day spends what the cap leaves of that day", async () => {
    const sim = await startSimulator({ fragrances: 120, seed: 31 });
    const dbPath = join(dir.path, `${driver === bullmq ? 'bullmq' : 'memory'}-daycap.duckdb`);
    try {
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const full = sim.ledger().cents;
      const res = await fetch(`${sim.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      expect((await driver.sync(sim, dbPath)).status).toBe('completed');
      const nightly = sim.ledger().cents - full;
      // Room for the walks of a run with nothing else due, far less than the full sync's day.
      const cap = nightly + 40;
      expect(full).toBeGreaterThan(cap);
      const capped = await driver.sync(sim, dbPath, { 'max-cents-per-day': String(cap) });
      const spent = sim.ledger().cents - full - nightly;
      expect(capped.status).not.toBe('internal_error');
      expect(spent).toBeGreaterThan(0);
      expect(nightly + spent).toBeLessThanOrEqual(cap);
    } finally {
      await sim.close();
    }
    // Three syncs, each with two worker processes on the BullMQ driver, on a shared machine.
  }, 300_000);
});
