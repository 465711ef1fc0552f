import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Db } from '../../src/warehouse/db.ts';
import { fragsyncTimed, usableWarehouse, type Ended } from '../helpers/paths.ts';
import { uniquePrefix } from '../helpers/tmp.ts';

/**
 * Paths that cannot be created or written: one line naming the path and exit 2, at once.
 * Under /proc, Node's recursive mkdir used to spin forever at full CPU (and SIGTERM did not
 * end it); each command here is killed after 30 s, so a hang fails as a wrong exit code.
 */

const fragsync = (args: string[], env: Record<string, string> = {}) => fragsyncTimed(args, { env });

/** Exit 2 with exactly one line on stderr that names `path`. */
function expectRefused(r: Ended, command: string, path: string): void {
  expect(r.code, r.stderr).toBe(EXIT.badInput);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`fragsync ${command}: `);
  expect(lines[0]).toContain(path);
}

const figures: string[] = [];
const where = usableWarehouse(() => console.log(`unusable paths, time to exit 2: ${figures.join(', ')}`));

const noService = ['--base-url', 'http://127.0.0.1:9'];

describe('paths that cannot be used fail fast', () => {
  it('sync --db under /proc', async () => {
    const r = await fragsync(['sync', ...noService, '--db', '/proc/x/y.duckdb']);
    expectRefused(r, 'sync', '/proc/x');
    expect(r.stderr).toContain('(dbPath): cannot create the folder (ENOENT)');
    figures.push(`sync --db /proc/x/y.duckdb ${r.ms} ms`);
  });

  it('sync --db in a folder where no file can be created', async () => {
    const r = await fragsync(['sync', ...noService, '--db', '/proc/y.duckdb']);
    expectRefused(r, 'sync', '/proc');
  });

  it('an unusable --db file (a folder) exits 2, not 1', async () => {
    const folder = join(where.dir, 'a-folder.duckdb');
    await mkdir(folder);
    expectRefused(await fragsync(['sync', ...noService, '--db', folder]), 'sync', folder);
  });

  it('an unusable --db file (not a DuckDB file) exits 2, not 1', async () => {
    const garbage = join(where.dir, 'garbage.duckdb');
    await writeFile(garbage, 'this is not a database, just some text that is long enough'.repeat(100));
    expectRefused(await fragsync(['sync', ...noService, '--db', garbage]), 'sync', garbage);
  });

  // DuckDB opens an existing data file as an in-memory database: a sync there paid for a
  // whole catalogue, said "completed" and kept nothing (the file unchanged).
  it.each(['json', 'csv', 'parquet'])(
    'a --db that is a .%s data file exits 2 and leaves it as it was',
    async (ext) => {
      const data = join(where.dir, `data.${ext}`);
      const text = ext === 'json' ? '{"a": 1}\n' : ext === 'csv' ? 'a,b\n1,2\n' : 'PAR1 not really parquet';
      await writeFile(data, text);
      const sync = await fragsync(['sync', ...noService, '--db', data]);
      expectRefused(sync, 'sync', data);
      expect(sync.stderr).toContain('not a DuckDB database file');
      expect(await readFile(data, 'utf8')).toBe(text);
      const runs = await fragsync(['runs', '--db', data]);
      expectRefused(runs, 'runs', data);
      expect(runs.stderr).toContain('not a DuckDB database file');
      // Every reader says it the same way, exit 2 (status and quarantine exited 1, "a bug").
      for (const command of ['status', 'quarantine']) {
        const r = await fragsync([command, '--db', data]);
        expectRefused(r, command, data);
        expect(r.stderr).toContain('not a DuckDB database file');
      }
    },
  );

  // A DuckDB file no sync wrote: read-only commands refuse it; --revalidate wrote 41 tables
  // into it and said "released 0".
  it('quarantine --revalidate on a DuckDB file no sync wrote exits 2 and writes nothing', async () => {
    const other = join(where.dir, 'other.duckdb');
    const made = await Db.open(other, false);
    await made.run('CREATE TABLE mine (x INTEGER)');
    await made.close();
    const r = await fragsync(['quarantine', '--db', other, '--revalidate']);
    expectRefused(r, 'quarantine', other);
    expect(r.stderr).toContain('is not a fragsync warehouse');
    const ro = await Db.open(other, true);
    const tables = await ro.all<{ name: string }>('SELECT table_name AS name FROM duckdb_tables()');
    await ro.close();
    expect(tables.map((t) => t.name)).toEqual(['mine']);
  });

  it('the export folder is tried before the run starts', async () => {
    const r = await fragsync(['sync', ...noService, '--db', where.db], {
      FRAGSYNC_PARQUET_DIR: '/proc/x/parquet',
    });
    expectRefused(r, 'sync', '/proc/x');
    expect(r.stderr).toContain('export.parquetDir');
  });

  it('export --parquet under /proc', async () => {
    const r = await fragsync(['export', '--parquet', '/proc/x/parquet', '--db', where.db]);
    expectRefused(r, 'export', '/proc/x');
    figures.push(`export --parquet /proc/x/parquet ${r.ms} ms`);
  });

  it('sync and worker --spool-dir under /proc', async () => {
    const redis = ['--redis', inject('redisUrl'), '--queue-prefix', uniquePrefix('paths')];
    const sync = await fragsync([
      'sync',
      ...noService,
      '--db',
      where.db,
      ...redis,
      '--spool-dir',
      '/proc/x/spool',
    ]);
    expectRefused(sync, 'sync', '/proc/x');
    expect(sync.stderr).toContain('queue.spoolDir');
    const worker = await fragsync(['worker', ...redis, '--spool-dir', '/proc/x/spool']);
    expectRefused(worker, 'worker', '/proc/x');
    figures.push(`worker --spool-dir /proc/x/spool ${worker.ms} ms`);
  });

  it('--config under /proc', async () => {
    const r = await fragsync(['sync', ...noService, '--db', where.db, '--config', '/proc/x/fragsync.json']);
    expectRefused(r, 'sync', '/proc/x/fragsync.json');
  });
});

describe('commands that only read the warehouse', () => {
  it('query, plan and status --db under /proc: one line naming the path, exit 2', async () => {
    for (const path of ['/proc/x/y.duckdb', '/proc/y.duckdb']) {
      const folder = path === '/proc/y.duckdb' ? '/proc' : '/proc/x';
      expectRefused(await fragsync(['query', '--db', path, 'SELECT 1']), 'query', path);
      expectRefused(await fragsync(['plan', '--db', path]), 'plan', folder);
      // status said 'does not exist yet', exit 0.
      expectRefused(await fragsync(['status', '--db', path]), 'status', folder);
    }
  });

  it('plan --db that is a folder or not a DuckDB file exits 2, not 1', async () => {
    const folder = join(where.dir, 'plan-folder.duckdb');
    await mkdir(folder);
    expectRefused(await fragsync(['plan', '--db', folder]), 'plan', folder);
    const garbage = join(where.dir, 'plan-garbage.duckdb');
    await writeFile(garbage, 'not a database '.repeat(500));
    expectRefused(await fragsync(['plan', '--db', garbage]), 'plan', garbage);
  });

  it('plan --db in folders a first sync would create: the plan of a first sync, nothing created', async () => {
    const path = join(where.dir, 'new', 'folder', 'first.duckdb');
    const r = await fragsync(['plan', '--db', path]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(existsSync(join(where.dir, 'new'))).toBe(false);
  });
});

describe('flag values', () => {
  it('--max-cents -5 is refused by the config check, not as an ambiguous argument', async () => {
    const r = await fragsync(['sync', ...noService, '--db', where.db, '--max-cents', '-5']);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim()).toBe(
      'fragsync sync: config: budget.maxCentsPerRun must be a non-negative integer (from flag --max-cents)',
    );
  });
});
