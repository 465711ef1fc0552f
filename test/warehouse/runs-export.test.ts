import { readdir } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { CONTRACT_TABLES, OVERFLOW_TABLES } from '../../src/warehouse/contract.ts';
import { enforcedMemoryLimit, useDefaultMemoryLimit } from '../../src/warehouse/memory-limit.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { reviewColumns, type LoadItem } from '../../src/domain/items.ts';
import { batch, freshWarehouse, profile } from './fixtures.ts';

let wh: Warehouse;
let dir: string;
let path: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, dir, path, cleanup } = await freshWarehouse());
});
afterEach(() => cleanup());

const call = (at: string, costCents: number, status = 200): LoadItem => ({
  kind: 'apiCall',
  at,
  method: 'GET',
  endpoint: '/v1/fragrances/{id}',
  status,
  costCents,
  quotaRemaining: null,
});

test('finishRun computes calls and cents from the ledger; spendOnDay sums one UTC day over all runs', async () => {
  await wh.startRun('r1', new Date('2024-03-01T23:00:00Z'));
  await wh.load(
    batch([call('2024-03-01T23:59:59.999Z', 2), call('2024-03-02T00:00:00.000Z', 25, 500)], [], 'r1'),
  );
  await wh.load(batch([call('2024-03-02T10:00:00+02:00', 1)], [], 'r2'));
  await wh.finishRun('r1', 'quota_exhausted', new Date('2024-03-02T01:00:00Z'));
  expect(
    await wh.query(`SELECT status, calls, cost_cents, finished_at IS NOT NULL AS done FROM sync_runs`),
  ).toEqual([{ status: 'quota_exhausted', calls: 2, cost_cents: 27, done: true }]);
  expect(await wh.spendOnDay('2024-03-01')).toEqual({ calls: 1, cents: 2 });
  expect(await wh.spendOnDay('2024-03-02')).toEqual({ calls: 2, cents: 26 });
  expect(await wh.spendOnDay('2024-03-03')).toEqual({ calls: 0, cents: 0 });
  await expect(wh.finishRun('nope', 'failed', new Date())).rejects.toMatchObject({ code: 'WAREHOUSE' });
  expect(
    await wh.query(`SELECT endpoint, calls, cents, failed_calls, failed_cents FROM spend_by_endpoint`),
  ).toEqual([{ endpoint: '/v1/fragrances/{id}', calls: 3, cents: 28, failed_calls: 1, failed_cents: 25 }]);
});

test('spend_by_endpoint lists the most cents first, ties by endpoint and method, whatever the load order', async () => {
  const at = '2024-03-01T10:00:00Z';
  const on = (endpoint: string, costCents: number, method: 'GET' | 'POST' = 'GET'): LoadItem => ({
    kind: 'apiCall',
    at,
    method,
    endpoint,
    status: 200,
    costCents,
    quotaRemaining: null,
  });
  // Loaded cheapest first, in an order unlike the view's; a hash aggregate returns groups in
  // no promised order, so without ORDER BY the view's rows came back in whatever order it made.
  await wh.load(
    batch(
      [
        on('/v1/notes', 1),
        on('/v1/brands', 1),
        on('/v1/search', 3, 'POST'),
        on('/v1/search', 3),
        on('/v1/fragrances/{id}', 25),
        on('/v1/charts', 2),
        on('/v1/charts', 2),
      ],
      [],
      'r1',
    ),
  );
  expect(await wh.query('SELECT method, endpoint, cents FROM spend_by_endpoint')).toEqual([
    { method: 'GET', endpoint: '/v1/fragrances/{id}', cents: 25 },
    { method: 'GET', endpoint: '/v1/charts', cents: 4 },
    { method: 'GET', endpoint: '/v1/search', cents: 3 },
    { method: 'POST', endpoint: '/v1/search', cents: 3 },
    { method: 'GET', endpoint: '/v1/brands', cents: 1 },
    { method: 'GET', endpoint: '/v1/notes', cents: 1 },
  ]);
});

test("a run's totals follow ledger rows that reach the warehouse after it finished", async () => {
  await wh.startRun('r1', new Date('2024-03-01T10:00:00Z'));
  await wh.load(batch([call('2024-03-01T10:00:01Z', 2)], [], 'r1'));
  await wh.finishRun('r1', 'interrupted', new Date('2024-03-01T11:00:00Z'));
  // During the next run, a spool reports a call r1's dead worker made.
  await wh.startRun('r2', new Date('2024-03-01T12:00:00Z'));
  await wh.load(batch([call('2024-03-01T10:00:02Z', 25, 0), call('2024-03-01T12:00:01Z', 1)], [], 'r1'));
  await wh.load(batch([call('2024-03-01T12:00:02Z', 1)], [], 'r2'));
  await wh.finishRun('r2', 'completed', new Date('2024-03-01T13:00:00Z'));
  expect(await wh.query('SELECT run_id, calls, cost_cents FROM sync_runs ORDER BY run_id')).toEqual([
    { run_id: 'r1', calls: 3, cost_cents: 28 },
    { run_id: 'r2', calls: 1, cost_cents: 1 },
  ]);
});

test("finishRun keeps the run's service clock offset when it saw one; syncState reads them by run start", async () => {
  await wh.startRun('a', new Date('2024-01-01T00:00:00Z'));
  await wh.finishRun('a', 'completed', new Date('2024-01-01T01:00:00Z'), 0);
  await wh.startRun('b', new Date('2024-01-02T00:00:00Z'));
  await wh.finishRun('b', 'interrupted', new Date('2024-01-02T01:00:00Z'));
  await wh.startRun('c', new Date('2024-01-03T00:00:00Z'));
  await wh.finishRun('c', 'completed', new Date('2024-01-03T01:00:00Z'), 86_400_000);
  expect((await wh.syncState()).clocks).toEqual([
    { runId: 'a', from: '2024-01-01T00:00:00.000Z', offsetMs: 0 },
    { runId: 'c', from: '2024-01-03T00:00:00.000Z', offsetMs: 86_400_000 },
  ]);
});

test('syncState cycle rules: open cycle until a run completes, then a new one', async () => {
  expect((await wh.syncState()).cycleStart).toBeNull();
  await wh.startRun('a', new Date('2024-01-01T00:00:00Z'));
  expect(await wh.syncState()).toMatchObject({
    cycleStart: '2024-01-01T00:00:00.000Z',
    lastCompletedRun: null,
  });
  await wh.finishRun('a', 'budget_exhausted', new Date('2024-01-01T01:00:00Z'));
  await wh.startRun('b', new Date('2024-01-02T00:00:00Z'));
  await wh.finishRun('b', 'completed', new Date('2024-01-02T01:00:00Z'));
  expect(await wh.syncState()).toMatchObject({ cycleStart: null, lastCompletedRun: 'b' });
  await wh.startRun('c', new Date('2024-01-03T00:00:00Z'));
  await wh.finishRun('c', 'interrupted', new Date('2024-01-03T01:00:00Z'));
  await wh.startRun('d', new Date('2024-01-04T00:00:00Z'));
  expect(await wh.syncState()).toMatchObject({
    cycleStart: '2024-01-03T00:00:00.000Z',
    lastCompletedRun: 'b',
  });
});

test('Parquet export holds exactly the contract and overflow tables and columns, equal to the warehouse', async () => {
  await wh.startRun('r1', new Date());
  await wh.load(
    batch(
      [
        profile('f1'),
        profile("o'brien/x"),
        {
          kind: 'reviews',
          fragranceId: 'f1',
          mode: 'replace',
          total: 2,
          ...reviewColumns([
            { date: '2024-01-01', rating: 5, text: null },
            { date: '2024-01-01', rating: 5, text: null },
          ]),
        },
        call('2024-03-01T00:00:00Z', 1),
      ],
      [],
      'r1',
    ),
  );
  const out = `${dir}/export/parquet`;
  await wh.exportParquet(out); // a previous export is replaced as a whole
  const result = await wh.exportParquet(out);
  expect(result.tables.fragrances).toBe(2);
  expect(result.tables.reviews).toBe(2);
  const exported = [...CONTRACT_TABLES, ...OVERFLOW_TABLES];
  expect((await readdir(out)).sort()).toEqual(exported.map((t) => `${t}.parquet`).sort());
  expect((await readdir(`${dir}/export`)).filter((f) => f !== 'parquet')).toEqual([]); // no temp leftovers
  for (const t of exported) {
    const file = `${out}/${t}.parquet`;
    const cols = await wh.query<{ name: string; type: string }>(
      `SELECT column_name AS name, column_type AS type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`,
    );
    const want = await wh.query<{ name: string; type: string }>(
      `SELECT column_name AS name, data_type AS type FROM duckdb_columns()
       WHERE table_name = $1 AND schema_name = 'main' AND NOT starts_with(column_name, '_') ORDER BY column_index`,
      [t],
    );
    expect(cols, t).toEqual(want);
    const diff = await wh.query<{ n: number }>(
      `SELECT count(*) AS n FROM ((SELECT * FROM read_parquet('${file}') EXCEPT ALL SELECT ${want.map((c) => `"${c.name}"`).join(', ')} FROM ${t})
       UNION ALL (SELECT ${want.map((c) => `"${c.name}"`).join(', ')} FROM ${t} EXCEPT ALL SELECT * FROM read_parquet('${file}')))`,
    );
    expect(diff[0]!.n, t).toBe(0);
  }
});

test('fragsync export CLI writes the files, and says so in one line when the file is missing', async () => {
  await wh.load(batch([profile('f1')]));
  await wh.close();
  const bin = new URL('../../bin/fragsync.js', import.meta.url).pathname;
  const ok = spawnSync(process.execPath, [bin, 'export', '--parquet', `${dir}/cli-out`, '--db', path], {
    encoding: 'utf8',
  });
  expect(ok.status).toBe(0);
  expect(ok.stdout).toMatch(/exported 20 tables/);
  expect(await readdir(`${dir}/cli-out`)).toContain('fragrances.parquet');
  const missing = spawnSync(
    process.execPath,
    [bin, 'export', '--parquet', `${dir}/x`, '--db', `${dir}/nope.duckdb`],
    {
      encoding: 'utf8',
    },
  );
  expect(missing.status).toBe(2);
  expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  const noFlag = spawnSync(process.execPath, [bin, 'export'], { encoding: 'utf8' });
  expect(noFlag.status).toBe(2);
});

test("the export runs with DuckDB's default memory in force, and the sync's limit is back after it", async () => {
  const query = (sql: string) => wh.query(sql);
  const session = await enforcedMemoryLimit(query);
  // RESET alone changed what current_setting reads, not what the buffer manager enforces.
  const limit = await useDefaultMemoryLimit(query);
  expect(limit).not.toBe(session);
  expect(await enforcedMemoryLimit(query)).toBe(limit);
  await wh.query(`SET memory_limit = '${session}'`);
  await wh.exportParquet(`${dir}/export/parquet`);
  // Back to the sync's limit, to within the rounding of DuckDB's printed value (it truncates
  // to one digit after the point, so a round trip may lose up to one unit of that digit).
  const after = mib(await enforcedMemoryLimit(query));
  expect(after).toBeLessThanOrEqual(mib(session));
  expect(after).toBeGreaterThan(mib(session) * 0.9);
});

const UNITS: Record<string, number> = { KiB: 2 ** -10, MiB: 1, GiB: 2 ** 10, TiB: 2 ** 20 };
function mib(printed: string): number {
  const [n, unit] = printed.split(' ');
  return Number(n) * UNITS[unit!]!;
}
