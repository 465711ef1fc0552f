import { afterEach, beforeEach, expect, test } from 'vitest';
import { Db } from '../../src/warehouse/db.ts';
import { migrate } from '../../src/warehouse/migrations.ts';
import { migrations } from '../../src/warehouse/sql-files.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { tempDir } from '../helpers/tmp.ts';
import { profile } from './fixtures.ts';

let tmp: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  tmp = await tempDir('fragsync-mig-');
});
afterEach(() => tmp.cleanup());

test('an empty file gets every migration, recorded in schema_migrations', async () => {
  const wh = await Warehouse.open(`${tmp.path}/nested/dir/w.duckdb`);
  const rows = await wh.query<{ version: number; name: string }>(
    'SELECT version, name FROM schema_migrations ORDER BY 1',
  );
  expect(rows.map((r) => r.version)).toEqual(migrations().map((m) => m.version));
  expect(rows.length).toBeGreaterThanOrEqual(2);
  await wh.close();
  // reopening applies nothing twice
  const again = await Warehouse.open(`${tmp.path}/nested/dir/w.duckdb`);
  expect(await again.query('SELECT count(*) AS n FROM schema_migrations')).toEqual([{ n: rows.length }]);
  await again.close();
});

test('a warehouse of the previous schema version is upgraded in place and keeps its data', async () => {
  const path = `${tmp.path}/old.duckdb`;
  const db = await Db.open(path, false);
  await migrate(db, { upTo: 1 });
  await db.run(
    `INSERT INTO fragrances (id, name, brand, score) VALUES ('old-1', 'Old', 'B', 3.5);
     INSERT INTO api_calls (run_id, "at", method, endpoint, status, cost_cents, quota_remaining)
     VALUES ('r0', '2024-01-01T00:00:00Z', 'GET', '/v1/fragrances', 200, 1, 10);`,
  );
  await db.close();

  const wh = await Warehouse.open(path);
  expect(await wh.query('SELECT max(version) AS v FROM schema_migrations')).toEqual([
    { v: migrations().length },
  ]);
  expect(await wh.query(`SELECT id, name, score FROM fragrances`)).toEqual([
    { id: 'old-1', name: 'Old', score: 3.5 },
  ]);
  expect(await wh.spendOnDay('2024-01-01')).toEqual({ calls: 1, cents: 1 });
  // new tables work on the old data
  await wh.load({ runId: 'r1', items: [profile('old-1', { score: 4 })], progress: [] });
  expect(await wh.query(`SELECT score FROM fragrance_score_history`)).toEqual([{ score: 4 }]);
  await wh.close();
});

test('a second process cannot open a warehouse in use: one clear WAREHOUSE_LOCKED error', async () => {
  const path = `${tmp.path}/locked.duckdb`;
  const wh = await Warehouse.open(path);
  const { spawnSync } = await import('node:child_process');
  const script = `import { Warehouse } from ${JSON.stringify(new URL('../../src/warehouse/warehouse.ts', import.meta.url).pathname)};
    try { await Warehouse.open(${JSON.stringify(path)}); console.log('opened'); }
    catch (e) { console.log(e.code + ' ' + e.message.split('\\n').length + ' ' + e.message); }`;
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(out.stdout).toMatch(/^WAREHOUSE_LOCKED 1 .*in use by another process/);
  await wh.close();
});

test('a file that is not a DuckDB database is an unusable dbPath (exit 2), named in one line', async () => {
  const { writeFile } = await import('node:fs/promises');
  const path = `${tmp.path}/garbage.duckdb`;
  await writeFile(path, 'this is not a database, just some text that is long enough to have a header');
  const err = await Warehouse.open(path).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'CONFIG_INVALID' });
  expect((err as Error).message).toMatch(/^cannot use \S+\/garbage\.duckdb \(dbPath\): [^\n]+$/);
});

test('read-only open refuses writes and an outdated schema', async () => {
  const path = `${tmp.path}/ro.duckdb`;
  const db = await Db.open(path, false);
  await migrate(db, { upTo: 1 });
  await db.close();
  await expect(Warehouse.open(path, { readOnly: true })).rejects.toThrow(/schema version 1/);
  await (await Warehouse.open(path)).close();
  const ro = await Warehouse.open(path, { readOnly: true });
  await expect(ro.load({ runId: 'x', items: [], progress: [] })).rejects.toThrow(/read-only/);
  await ro.close();
});
