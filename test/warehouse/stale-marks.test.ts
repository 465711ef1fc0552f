import { afterEach, beforeEach, expect, test } from 'vitest';
import type { ProgressMark } from '../../src/domain/items.ts';
import { parseMerge, planBatch } from '../../src/warehouse/merge-plan.ts';
import { sqlFiles } from '../../src/warehouse/sql-files.ts';
import { stageBatch } from '../../src/warehouse/stage-rows.ts';
import { STAGING_TABLES } from '../../src/warehouse/staging.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, freshWarehouse } from './fixtures.ts';

let wh: Warehouse;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, cleanup } = await freshWarehouse());
});
afterEach(async () => {
  await wh.close().catch(() => undefined);
  await cleanup();
});

const fetched = (key: string, dataset: string): ProgressMark => ({
  kind: 'fetched',
  entity: 'fragrance',
  key,
  dataset,
});
const stale = (key: string, dataset: string): ProgressMark => ({
  kind: 'stale',
  entity: 'fragrance',
  key,
  dataset,
});

/** Which of the three fetch times each item has (true: set). */
async function fetchTimes(): Promise<Record<string, boolean[]>> {
  const rows = await wh.query<{ key: string; p: boolean; s: boolean; c: boolean }>(
    `SELECT key, fetched_profile IS NOT NULL AS p, fetched_similar IS NOT NULL AS s,
       fetched_catalogue IS NOT NULL AS c FROM sync_items ORDER BY key`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, [r.p, r.s, r.c]]));
}

test('a stale mark clears its fetch time, a later fetch in the batch wins, and an unknown item gets its row', async () => {
  await wh.load(batch([], [fetched('f1', 'profile'), fetched('f1', 'similar'), fetched('f2', 'profile')]));
  expect(await fetchTimes()).toEqual({ f1: [true, true, false], f2: [true, false, false] });
  await wh.load(
    batch(
      [],
      [
        stale('f1', 'profile'),
        stale('f1', 'similar'),
        fetched('f1', 'similar'),
        stale('f2', 'similar'),
        stale('f3', 'profile'),
      ],
    ),
  );
  expect(await fetchTimes()).toEqual({
    f1: [false, true, false],
    f2: [true, false, false],
    f3: [false, false, false],
  });
});

test('the clearing runs only in batches with a stale mark, not in every batch with fetched marks', () => {
  const merges = parseMerge(sqlFiles('merge'));
  const clearing = /UPDATE sync_items SET\s+fetched_profile = CASE/;
  const plan = (marks: ProgressMark[]) => {
    const staged = stageBatch(batch([], marks));
    return planBatch(merges, new Set(STAGING_TABLES.filter((t) => staged[t].length > 0)), new Set()).sql;
  };
  expect(plan([fetched('f1', 'profile')])).not.toMatch(clearing);
  expect(plan([fetched('f1', 'profile')])).toMatch(/INSERT INTO sync_items/);
  expect(plan([stale('f1', 'profile')])).toMatch(clearing);
});
