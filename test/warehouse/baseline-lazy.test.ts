import { existsSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { baselinePath } from '../../src/warehouse/baseline-file.ts';
import { BASELINE } from '../../src/warehouse/run-changes.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, freshWarehouse, profile } from './fixtures.ts';

/**
 * The run's baseline is read back from its file only when the summary compares with it
 * (Warehouse.runChanges), not at every reopen of the file after a release (a quota pause, an
 * idle spell): that was a temp table of ~190 MB at 120k fragrances each time, which only the
 * summary reads. The answers stay those of a baseline that never left the connection.
 */
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Whether the baseline's temp table is on the writer's connection now (opening it if released). */
const onConnection = async (wh: Warehouse): Promise<boolean> =>
  Number(
    (
      await wh.query<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = '${BASELINE}' AND temporary`,
      )
    )[0]?.n,
  ) > 0;

/** A warehouse holding f-1 and f-2, with the baseline taken: then f-1 renamed and f-3 added. */
async function runAfterBaseline(): Promise<{ wh: Warehouse; path: string }> {
  const fresh = await freshWarehouse();
  cleanup = fresh.cleanup;
  const { wh } = fresh;
  await wh.load(batch([profile('f-1'), profile('f-2')], [], 'run-0'));
  await wh.takeBaseline();
  await wh.load(batch([profile('f-1', { name: 'Renamed' }), profile('f-3')]));
  return { wh, path: fresh.path };
}

const expected = { added: 1, changed: 1, removed: 0 };

test('a reopen after a release leaves the baseline in its file; the summary reads it back, once', async () => {
  const { wh, path } = await runAfterBaseline();
  await wh.release();
  expect(existsSync(baselinePath(path))).toBe(true);
  // Reopened by the query itself: the baseline is not on the new connection.
  expect(await onConnection(wh)).toBe(false);
  await wh.load(batch([profile('f-4')]));
  // A second release and reopen: still in the file, still not read back.
  await wh.release();
  await wh.load(batch([profile('f-5')]));
  expect(await onConnection(wh)).toBe(false);
  expect(wh.baseline!.restores).toBe(0);

  const changes = await wh.runChanges();
  expect(wh.baseline!.restores).toBe(1);
  expect(changes!.tables.fragrances).toEqual({ ...expected, added: 3 });
  expect(changes!.items.fragrance).toBe(4);
  // Compared and dropped: neither the temp table nor the file is left, and no second answer.
  expect(await onConnection(wh)).toBe(false);
  expect(existsSync(baselinePath(path))).toBe(false);
  expect(await wh.runChanges()).toBeNull();
});

test('a baseline that never left the connection is compared there, without the file', async () => {
  const { wh, path } = await runAfterBaseline();
  expect(existsSync(baselinePath(path))).toBe(false);
  const changes = await wh.runChanges();
  expect(wh.baseline!.restores).toBe(0);
  expect(changes!.tables.fragrances).toEqual(expected);
});

test('a release after the comparison keeps nothing, and a run that took no baseline has no changes', async () => {
  const { wh, path } = await runAfterBaseline();
  await wh.release();
  expect((await wh.runChanges())!.tables.fragrances).toEqual(expected);
  await wh.release();
  expect(existsSync(baselinePath(path))).toBe(false);
  const fresh = await freshWarehouse();
  try {
    expect(await fresh.wh.runChanges()).toBeNull();
  } finally {
    await fresh.cleanup();
  }
});
