import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator, SimulatorVariant } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

async function withSim<T>(
  opts: { fragrances: number; variant?: Partial<SimulatorVariant> },
  fn: (sim: Simulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ fragrances: opts.fragrances, seed: 7, variant: opts.variant });
  try {
    return await fn(sim);
  } finally {
    await sim.close();
  }
}

async function quarantined(dbPath: string): Promise<number> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const [r] = await wh.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM quarantine');
    return Number(r?.n ?? 0);
  } finally {
    await wh.close();
  }
}

describe('full sync, in-process driver', () => {
  it('mirrors the catalogue exactly, at the minimum cost, with a ledger equal to the service', async () => {
    await withSim({ fragrances: 150 }, async (sim) => {
      const dbPath = join(dir.path, 'plain.duckdb');
      const summary = await runTestSync({ baseUrl: sim.url, dbPath });
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const ours = await warehouseLedger(dbPath);
      expect(ours.calls).toBe(ledger.calls);
      expect(ours.billable).toBe(ledger.cents);
      expect(summary.costRatio).not.toBeNull();
      expect(summary.costRatio as number).toBeLessThanOrEqual(1.05);
      expect(await quarantined(dbPath)).toBe(0);
    });
  });

  it('stays exact with 5% injected faults: 500s, connection resets, truncated bodies', async () => {
    await withSim({ fragrances: 120 }, async (sim) => {
      sim.setFaults({ errorRate: 0.02, resetRate: 0.02, truncateRate: 0.01 });
      const dbPath = join(dir.path, 'faults.duckdb');
      const summary = await runTestSync({ baseUrl: sim.url, dbPath, flags: { concurrency: '16' } });
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const ours = await warehouseLedger(dbPath);
      expect(summary.failedCalls).toBeGreaterThan(0);
      expect(ours.calls).toBe(ledger.calls);
      expect(ours.billable).toBe(ledger.cents);
      expect(await quarantined(dbPath)).toBe(0);
    });
  });

  it('is exact against another legal reading: opaque ids, text errors, extra fields, reversed lists, unbilled failures', async () => {
    const variant: Partial<SimulatorVariant> = {
      idStyle: 'opaque',
      errorBody: 'text',
      extraFields: true,
      listOrder: 'reverse',
      billFailedCalls: false,
      bad400Code: 'VALIDATION_ERROR',
    };
    await withSim({ fragrances: 100, variant }, async (sim) => {
      sim.setFaults({ errorRate: 0.03 });
      const dbPath = join(dir.path, 'variant.duckdb');
      const summary = await runTestSync({ baseUrl: sim.url, dbPath });
      expect(summary.status).toBe('completed');
      const truth = sim.groundTruth();
      expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
      const ledger = sim.ledger();
      const wh = await Warehouse.open(dbPath, { readOnly: true });
      const [ok] = await wh.query<{ cents: number; calls: number }>(
        'SELECT sum(cost_cents)::INTEGER AS cents, count(*)::INTEGER AS calls FROM api_calls WHERE status = 200',
      );
      const [all] = await wh.query<{ calls: number }>('SELECT count(*)::INTEGER AS calls FROM api_calls');
      await wh.close();
      expect(Number(all?.calls)).toBe(ledger.calls);
      // Failed calls are not billed by this service: only the 200s are.
      expect(Number(ok?.cents)).toBe(ledger.cents);
    });
  });
});
