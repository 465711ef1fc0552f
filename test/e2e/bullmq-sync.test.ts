import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { attemptsOf, cleanPrefix, startWorker } from '../helpers/worker-process.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

describe('full sync, BullMQ driver with two worker processes', () => {
  it('shares the work and mirrors the catalogue exactly, ledger equal to the service', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('bullmq');
    const sim = await startSimulator({ fragrances: 150, seed: 11 });
    sim.setFaults({ errorRate: 0.02, resetRate: 0.02, truncateRate: 0.01 });
    const workers = [await startWorker(redisUrl, prefix), await startWorker(redisUrl, prefix)];
    try {
      const dbPath = join(dir.path, 'bullmq.duckdb');
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { redis: redisUrl, 'queue-prefix': prefix },
      });
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));
      const processed = workers.map(attemptsOf);
      // Both worker processes took part.
      expect(processed[0]).toBeGreaterThan(0);
      expect(processed[1]).toBeGreaterThan(0);
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ours = await warehouseLedger(dbPath);
      expect(ours.calls).toBe(sim.ledger().calls);
      expect(ours.billable).toBe(sim.ledger().cents);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  });
});
