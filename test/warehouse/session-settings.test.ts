import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { freshWarehouse } from './fixtures.ts';

/**
 * What sql/session.sql sets for a writable warehouse: the sync's memory depends on them
 * (docs/benchmarks.md, "Scale", sessions 9-11), so a setting lost in an edit shows here and
 * not only in a 30-minute benchmark.
 */
let wh: Warehouse;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ wh, cleanup } = await freshWarehouse());
});

afterAll(async () => {
  await cleanup();
});

test("a writable warehouse runs DuckDB with the session's memory settings", async () => {
  const rows = await wh.query<{ name: string; value: string }>(
    `SELECT name, value FROM duckdb_settings()
     WHERE name IN ('allocator_background_threads', 'threads', 'checkpoint_threshold', 'memory_limit')
     ORDER BY name`,
  );
  const settings = Object.fromEntries(rows.map((r) => [r.name, r.value]));
  // jemalloc's background thread returns what DuckDB frees (a checkpoint's rows and index
  // entries) to the OS; without it the process kept that memory until DuckDB next allocated.
  expect(settings.allocator_background_threads).toBe('true');
  expect(settings.threads).toBe('1');
  // 32MB and 96MB as DuckDB prints them (MB are 10^6 bytes, printed in MiB).
  expect(settings.checkpoint_threshold).toBe('30.5 MiB');
  expect(settings.memory_limit).toBe('91.5 MiB');
});
