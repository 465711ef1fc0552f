import { expect } from 'vitest';
import type { Simulator } from '../../src/simulator/types.ts';
import { diffTables, truthTables, warehouseLedger, warehouseTables } from './ground-truth.ts';

/** The mirror equals the service's truth of its day, and api_calls the service's ledger. */
export async function expectExact(sim: Simulator, dbPath: string): Promise<void> {
  const truth = sim.groundTruth();
  expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
  const ours = await warehouseLedger(dbPath);
  expect(ours.calls).toBe(sim.ledger().calls);
  expect(ours.billable).toBe(sim.ledger().cents);
}
