import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { catalogueMinimum, tableRows } from '../../src/sync/summary-figures.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * The catalogue sizes the summary's minimum is priced from (summary-figures.ts
 * catalogueMinimum), read from a real DuckDB warehouse: fragrances are the rows stored, not
 * the list's total, which may name an entry twice (a legal reading): the list's pages follow
 * its total, its fragrances are priced once each.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-minimum-');
});
afterAll(async () => {
  await dir.cleanup();
});

describe('catalogueMinimum', () => {
  it('prices the fragrances stored (not the duplicate entries their list named), their review pages and the catalogues', async () => {
    const wh = await Warehouse.open(join(dir.path, 'wh.duckdb'));
    try {
      const at = "TIMESTAMPTZ '2026-01-01 00:00:00+00'";
      // 3 fragrances with 5, 130 and no reviews; the list named 120 entries (its total): 3 pages.
      await wh.query("INSERT INTO fragrances (id) VALUES ('f0'), ('f1'), ('f2')");
      await wh.query("INSERT INTO reviews (fragrance_id) SELECT 'f0' FROM range(5)");
      await wh.query("INSERT INTO reviews (fragrance_id) SELECT 'f1' FROM range(130)");
      await wh.query(
        `INSERT INTO sync_walks (walk, page, total, done, "at") VALUES ('fragrances@1', 1, 120, true, ${at})`,
      );
      // Brand a: 60 members; brand b: 10 members, its listing's total 55 (members named twice).
      await wh.query("INSERT INTO brands (slug) VALUES ('a'), ('b')");
      await wh.query("INSERT INTO brand_fragrances SELECT 'a', 'x' || i, NULL, NULL FROM range(60) t(i)");
      await wh.query("INSERT INTO brand_fragrances SELECT 'b', 'y' || i, NULL, NULL FROM range(10) t(i)");
      await wh.query(
        `INSERT INTO sync_walks (walk, page, total, done, "at") VALUES ('brand:b', 1, 55, true, ${at})`,
      );
      await wh.query("INSERT INTO perfumers (slug) SELECT 'p' || i FROM range(4) t(i)");
      const config = loadConfig({ flags: {}, env: {} });
      const cost = await catalogueMinimum(wh, config, tableRows(wh));
      const calls = (name: string) => cost.byEndpoint[name as keyof typeof cost.byEndpoint]?.calls;
      expect(calls('listFragrances')).toBe(3);
      expect(calls('getFragrance')).toBe(3);
      // 1 + 3 + 1 review pages (a fragrance without reviews still costs its first page).
      expect(calls('getReviews')).toBe(5);
      // Two pages of 60 members and two of 55 entries.
      expect(calls('getBrandFragrances')).toBe(4);
      expect(calls('getPerfumer')).toBe(4);
    } finally {
      await wh.close();
    }
  });
});
