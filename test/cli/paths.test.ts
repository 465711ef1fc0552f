import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { BIN } from '../helpers/worker-process.ts';

/**
 * Paths that cannot be created or written: one line naming the path and exit 2, at once.
 * Under /proc, Node's recursive mkdir used to spin forever at full CPU (and SIGTERM did not
 * end it); each command here is killed after 30 s, so a hang fails as a wrong exit code.
 */

interface Ended {
  code: number | null;
  stderr: string;
  ms: number;
}

function fragsync(args: string[], env: Record<string, string> = {}): Promise<Ended> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', FRAGSYNC_API_KEY: 'k', ...env }, timeout: 30_000 },
      (err, _stdout, stderr) => {
        const code = err ? ((err as { code?: number | null }).code ?? null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** Exit 2 with exactly one line on stderr that names `path`. */
function expectRefused(r: Ended, command: string, path: string): void {
  expect(r.code, r.stderr).toBe(EXIT.badInput);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`fragsync ${command}: `);
  expect(lines[0]).toContain(path);
}

let dir: { path: string; cleanup(): Promise<void> };
let db: string;
const figures: string[] = [];
beforeAll(async () => {
  dir = await tempDir();
  db = join(dir.path, 'ok.duckdb');
  await (await Warehouse.open(db)).close();
});
afterAll(async () => {
  await dir.cleanup();
  console.log(`unusable paths, time to exit 2: ${figures.join(', ')}`);
});

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
    const folder = join(dir.path, 'a-folder.duckdb');
    await mkdir(folder);
    expectRefused(await fragsync(['sync', ...noService, '--db', folder]), 'sync', folder);
  });

  it('an unusable --db file (not a DuckDB file) exits 2, not 1', async () => {
    const garbage = join(dir.path, 'garbage.duckdb');
    await writeFile(garbage, 'this is not a database, just some text that is long enough'.repeat(100));
    expectRefused(await fragsync(['sync', ...noService, '--db', garbage]), 'sync', garbage);
  });

  it('the export folder is tried before the run starts', async () => {
    const r = await fragsync(['sync', ...noService, '--db', db], { FRAGSYNC_PARQUET_DIR: '/proc/x/parquet' });
    expectRefused(r, 'sync', '/proc/x');
    expect(r.stderr).toContain('export.parquetDir');
  });

  it('export --parquet under /proc', async () => {
    const r = await fragsync(['export', '--parquet', '/proc/x/parquet', '--db', db]);
    expectRefused(r, 'export', '/proc/x');
    figures.push(`export --parquet /proc/x/parquet ${r.ms} ms`);
  });

  it('sync and worker --spool-dir under /proc', async () => {
    const redis = ['--redis', inject('redisUrl'), '--queue-prefix', uniquePrefix('paths')];
    const sync = await fragsync(['sync', ...noService, '--db', db, ...redis, '--spool-dir', '/proc/x/spool']);
    expectRefused(sync, 'sync', '/proc/x');
    expect(sync.stderr).toContain('queue.spoolDir');
    const worker = await fragsync(['worker', ...redis, '--spool-dir', '/proc/x/spool']);
    expectRefused(worker, 'worker', '/proc/x');
    figures.push(`worker --spool-dir /proc/x/spool ${worker.ms} ms`);
  });

  it('--config under /proc', async () => {
    const r = await fragsync(['sync', ...noService, '--db', db, '--config', '/proc/x/fragsync.json']);
    expectRefused(r, 'sync', '/proc/x/fragsync.json');
  });
});

describe('commands that only read the warehouse', () => {
  it('query and plan --db under /proc: one line naming the path, exit 2', async () => {
    for (const path of ['/proc/x/y.duckdb', '/proc/y.duckdb']) {
      const folder = path === '/proc/y.duckdb' ? '/proc' : '/proc/x';
      expectRefused(await fragsync(['query', '--db', path, 'SELECT 1']), 'query', path);
      expectRefused(await fragsync(['plan', '--db', path]), 'plan', folder);
    }
  });

  it('plan --db that is a folder or not a DuckDB file exits 2, not 1', async () => {
    const folder = join(dir.path, 'plan-folder.duckdb');
    await mkdir(folder);
    expectRefused(await fragsync(['plan', '--db', folder]), 'plan', folder);
    const garbage = join(dir.path, 'plan-garbage.duckdb');
    await writeFile(garbage, 'not a database '.repeat(500));
    expectRefused(await fragsync(['plan', '--db', garbage]), 'plan', garbage);
  });

  it('plan --db in folders a first sync would create: the plan of a first sync, nothing created', async () => {
    const path = join(dir.path, 'new', 'folder', 'first.duckdb');
    const r = await fragsync(['plan', '--db', path]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(existsSync(join(dir.path, 'new'))).toBe(false);
  });
});

describe('flag values', () => {
  it('--max-cents -5 is refused by the config check, not as an ambiguous argument', async () => {
    const r = await fragsync(['sync', ...noService, '--db', db, '--max-cents', '-5']);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim()).toBe(
      'fragsync sync: config: budget.maxCentsPerRun must be a non-negative integer (from flag --max-cents)',
    );
  });
});
