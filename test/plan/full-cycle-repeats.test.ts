import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { fragsync } from '../helpers/cli.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { governedFiles, queryWarehouse } from '../helpers/governed.ts';

/**
 * The edge reading's fragrance list names some entries twice (legal), so its total is above
 * the fragrances it holds. After a full sync read it whole, `plan --full` counted the
 * difference as fragrances still to find, priced complete ('at least' 840 calls where the
 * full sync made 756, at 150 fragrances). Every entry a whole read named is known: plan now
 * names per endpoint what the next full sync buys. The service here also serves pages of at
 * most 20 (legal: pagination.limit says so): plan priced review pages at 50 (336 calls where
 * the full sync made 680, at 150 fragrances), though the summary's minimum read the size used.
 */
const KEY = { FRAGSYNC_API_KEY: 'sim-key' };

describe.each([inProcess, bullmq])(
  'plan --full after a list that names entries twice, pages of 20 ($name)',
  (driver) => {
    const files = governedFiles();
    let sim: Simulator;
    let db: string;
    beforeAll(async () => {
      sim = await startSimulator({ fragrances: 40, seed: 2, variant: { edgeValues: true, pageCap: 20 } });
      db = files.path('w.duckdb');
    });
    afterAll(() => sim.close());

    it('names exactly the calls the next full sync makes', async () => {
      expect((await driver.sync(sim, db)).status).toBe('completed');
      const [stored] = await queryWarehouse<{ n: number }>(
        db,
        'SELECT count(*)::INTEGER AS n FROM fragrances',
      );
      const page = await fetch(`${sim.url}/v1/fragrances?limit=1`, {
        headers: { authorization: `Bearer ${KEY.FRAGSYNC_API_KEY}` },
      });
      const listed = ((await page.json()) as { pagination: { total: number } }).pagination.total;
      expect(listed).toBeGreaterThan(stored!.n); // the list repeats entries: the case tested

      const out = await fragsync(['plan', '--full', '--base-url', sim.url, '--db', db, '--json'], KEY);
      expect(out.code, out.stderr).toBe(0);
      const plan = JSON.parse(out.stdout) as {
        byEndpoint: Record<string, { path: string; calls: number }>;
        undiscoveredFragrances: number;
      };
      expect(plan.undiscoveredFragrances).toBe(0);
      const said = Object.fromEntries(Object.values(plan.byEndpoint).map((e) => [e.path, e.calls]));

      expect((await driver.sync(sim, db, { full: 'true' })).status).toBe('completed');
      const rows = await queryWarehouse<{ endpoint: string; n: number }>(
        db,
        `SELECT endpoint, count(*)::INTEGER AS n FROM api_calls
       WHERE run_id = (SELECT max(run_id) FROM sync_runs) GROUP BY endpoint`,
      );
      expect(said).toEqual(Object.fromEntries(rows.map((r) => [r.endpoint, r.n])));
    }, 120_000);
  },
);
