import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { diffTables, truthTables, warehouseTables } from '../helpers/ground-truth.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The nightly engine against a living catalogue: a full sync, a simulated day (new releases,
 * a withdrawal, score moves, new reviews, reshuffled charts; the service's clock a day on),
 * then the default sync: a nightly that pays
 * for what changed and what the freshness policy says is due, not for everything again.
 */
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ fragrances: 300, seed: 11 });
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

async function rows<T>(dbPath: string, sql: string): Promise<T[]> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    return await wh.query<T>(sql);
  } finally {
    await wh.close();
  }
}

describe('nightly sync', () => {
  it('after a completed full sync, pays for what changed and what is due, and mirrors the day exactly', async () => {
    const dbPath = join(dir.path, 'nightly.duckdb');
    const full = await runTestSync({ baseUrl: sim.url, dbPath });
    expect(full.status).toBe('completed');

    sim.advanceDay();
    const nightly = await runTestSync({ baseUrl: sim.url, dbPath });
    expect(nightly.status).toBe('completed');
    const modes = await rows<{ mode: string }>(
      dbPath,
      'SELECT mode FROM sync_runs JOIN sync_run_modes USING (run_id) ORDER BY started_at',
    );
    expect(modes.map((r) => r.mode)).toEqual(['full', 'nightly']);

    const truth = sim.groundTruth();
    const diff = diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate));
    expect(diff).toEqual({});
    // Profiles and first review pages are a third; on the default change model older similar
    // lists do not take in releases (0.40 on 1,500), on the live one they do (0.48 on 1,500:
    // nearly half the lists change). test/e2e/nightly-similar.test.ts runs both.
    expect(nightly.cents / full.cents).toBeLessThan(0.6);
    // The signals owe only some similar lists, not all of them again.
    const similar = nightly.byEndpoint.find((e) => e.endpoint === '/v1/fragrances/{id}/similar')?.calls ?? 0;
    expect(similar).toBeGreaterThan(0);
    expect(similar).toBeLessThan(0.8 * truth.fragrances.length);
    // Daily datasets were all fetched again; weekly ones only tonight's slice.
    const fresh = await rows<{
      entity: string;
      dataset: string;
      items: number;
      stale: number;
      never_fetched: number;
    }>(
      dbPath,
      'SELECT entity, dataset, items::INTEGER AS items, stale::INTEGER AS stale, never_fetched::INTEGER AS never_fetched FROM freshness',
    );
    const profile = fresh.find((r) => r.entity === 'fragrance' && r.dataset === 'profile');
    expect(profile?.items).toBe(truth.fragrances.length);
    expect(profile).toMatchObject({ stale: 0, never_fetched: 0 });

    // --full fetches everything again, every review page too, so it repairs what the nightly's
    // page-1 read cannot see: an old review altered in the warehouse (here by hand).
    const [most] = Object.entries(truth.reviews).sort((a, b) => b[1].length - a[1].length);
    expect(most![1].length).toBeGreaterThan(50);
    const wh = await Warehouse.open(dbPath);
    try {
      await wh.query(
        `UPDATE reviews SET text = 'tampered' WHERE fragrance_id = '${most![0]}'
           AND date = (SELECT min(date) FROM reviews WHERE fragrance_id = '${most![0]}')`,
      );
    } finally {
      await wh.close();
    }
    const again = await runTestSync({ baseUrl: sim.url, dbPath, flags: { full: true } });
    expect(again.status).toBe('completed');
    expect(again.cents).toBeGreaterThan(0.9 * full.cents);
    const pages = Object.values(truth.reviews).reduce((n, l) => n + Math.max(1, Math.ceil(l.length / 50)), 0);
    expect(again.byEndpoint.find((e) => e.endpoint === '/v1/fragrances/{id}/reviews')?.calls).toBe(pages);
    expect(diffTables(truthTables(truth), await warehouseTables(dbPath, truth.serviceDate))).toEqual({});
    const last = await rows<{ mode: string }>(
      dbPath,
      'SELECT mode FROM sync_runs JOIN sync_run_modes USING (run_id) ORDER BY started_at DESC LIMIT 1',
    );
    expect(last[0]?.mode).toBe('full');
  }, 240_000);
});
