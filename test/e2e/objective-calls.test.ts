import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { diffTables, truthTables, warehouseTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  sim = await startSimulator({ fragrances: 120, seed: 5 });
  dir = await tempDir();
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

describe('objective calls: quota binds before money', () => {
  it('replaces similar + review page by one enrich call where the previous sync showed both lists short', async () => {
    const base = join(dir.path, 'base.duckdb');
    const first = await runTestSync({ baseUrl: sim.url, dbPath: base });
    expect(first.status).toBe('completed');
    const cents = join(dir.path, 'cents.duckdb');
    const calls = join(dir.path, 'calls.duckdb');
    await copyFile(base, cents);
    await copyFile(base, calls);

    // --full: every list again, as a re-sync (a nightly would find nothing due minutes later).
    const byCents = await runTestSync({ baseUrl: sim.url, dbPath: cents, flags: { full: true } });
    const byCalls = await runTestSync({
      baseUrl: sim.url,
      dbPath: calls,
      flags: { full: true, objective: 'calls' },
    });
    expect(byCents.status).toBe('completed');
    expect(byCalls.status).toBe('completed');

    const enrich = byCalls.byEndpoint.find((e) => e.endpoint === '/v1/fragrances/enrich')?.calls ?? 0;
    expect(enrich).toBeGreaterThan(0);
    expect(byCents.byEndpoint.some((e) => e.endpoint === '/v1/fragrances/enrich')).toBe(false);
    // Each enrich saves one quota unit and costs 7 cents more (10 instead of 2 + 1).
    expect(byCalls.calls).toBe(byCents.calls - enrich);
    expect(byCalls.cents).toBe(byCents.cents + 7 * enrich);

    const truth = sim.groundTruth();
    expect(diffTables(truthTables(truth), await warehouseTables(calls, truth.serviceDate))).toEqual({});
  });
});
