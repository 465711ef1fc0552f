import { describe, expect, it } from 'vitest';
import { governedFiles } from '../helpers/governed.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { expectExact } from '../helpers/exact.ts';

/**
 * The edge values the spec allows (tied chart ranks, a similar id repeated in one list, a
 * label repeated, empty strings, extreme numbers), a full sync and then the nightly of the
 * next simulated day: each run is exact against the truth of its day, the rows the
 * contract's keys cannot hold included (stored apart and counted in the summary), and
 * neither run quarantines anything or fails a call but the removal's 404.
 */
// A temp folder for the file's warehouses, removed after it.
const files = governedFiles();

describe.each([inProcess, bullmq])('edge values over two days, $name', (driver) => {
  it('full sync then nightly: exact each day, overflow counted, nothing quarantined', async () => {
    const sim = await startSimulator({ fragrances: 120, seed: 4, variant: { edgeValues: true } });
    const dbPath = files.path(`${driver === bullmq ? 'bullmq' : 'memory'}-edge.duckdb`);
    try {
      const full = await driver.sync(sim, dbPath);
      expect(full.status).toBe('completed');
      expect(full.quarantined).toEqual([]);
      expect(full.overflow.length).toBeGreaterThan(0);
      await expectExact(sim, dbPath);

      sim.advanceDay();
      const nightly = await driver.sync(sim, dbPath);
      expect(nightly.status).toBe('completed');
      expect(nightly.mode).toBe('incremental');
      expect(nightly.quarantined).toEqual([]);
      expect(nightly.failedByStatus.filter((f) => f.status !== 404)).toEqual([]);
      await expectExact(sim, dbPath);
    } finally {
      await sim.close();
    }
  }, 180_000);
});
