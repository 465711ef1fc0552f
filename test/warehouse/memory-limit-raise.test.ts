import { afterEach, expect, test } from 'vitest';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, count, freshWarehouse, profile } from './fixtures.ts';

/**
 * A batch that runs out of DuckDB's memory limit is rolled back, the limit doubled and the
 * batch loaded again, whole, instead of failing every run at the same point (the primary
 * keys' indexes grow with the warehouse: docs/benchmarks.md, "Session 12: loader").
 */
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const limit = async (wh: Warehouse): Promise<string> =>
  String((await wh.query<{ m: string }>("SELECT current_setting('memory_limit') AS m"))[0]?.m);

test('a batch that runs out of memory is loaded whole with the limit raised, and says so', async () => {
  const fresh = await freshWarehouse();
  const wh = fresh.wh;
  cleanup = fresh.cleanup;
  // Far below what this batch's rows and index entries need.
  await wh.query("SET memory_limit = '8MB'");
  const items = Array.from({ length: 4000 }, (_, i) =>
    profile(`f-${i}`, { name: `Fragrance ${i} `.repeat(20) }),
  );
  const result = await wh.load(batch(items));
  expect(result.memoryLimitRaisedMb).toBe(192);
  expect(await limit(wh)).toBe('183.1 MiB');
  expect(await count(wh, 'fragrances')).toBe(4000);
  expect(await count(wh, 'fragrance_notes')).toBe(4000 * 6);
  // The next batch fits: nothing raised again.
  const next = await wh.load(batch([profile('f-next')], [], 'run-2'));
  expect(next.memoryLimitRaisedMb).toBeUndefined();
});

test('a batch that fits leaves the limit where session.sql set it', async () => {
  const fresh = await freshWarehouse();
  cleanup = fresh.cleanup;
  const result = await fresh.wh.load(batch([profile('f-1')]));
  expect(result.memoryLimitRaisedMb).toBeUndefined();
  expect(await limit(fresh.wh)).toBe('91.5 MiB');
});
