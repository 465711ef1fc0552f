import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Db } from '../../src/warehouse/db.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { WriterLock } from '../../src/warehouse/writer-lock.ts';
import { fragsync, said } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `fragsync runs` while a sync is writing: DuckDB lets no other process open the file, not
 * even read-only, so runs cannot read sync_runs. It says in one line which sync holds the
 * warehouse (its writer lock) and points to `fragsync status`, exit 2. Before, it printed
 * the generic "is being written by ... try again shortly" and never named status.
 * This test's process stands for the sync: it holds the writer lock and the open file.
 */
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
let lock: WriterLock;
let file: Db;

beforeAll(async () => {
  dir = await tempDir('fragsync-runs-held-');
  db = join(dir.path, 'wh.duckdb');
  const wh = await Warehouse.open(db);
  await wh.startRun('run-writing', new Date('2026-01-03T02:00:00Z'));
  await wh.close();
  lock = WriterLock.acquire(db, 'run-writing');
  file = await Db.open(db, false);
});
afterAll(async () => {
  await file.close();
  lock.release();
  await dir.cleanup();
});

describe('fragsync runs while a sync writes the warehouse', () => {
  it('says in one line which sync holds it and points to status, exit 2', async () => {
    const r = await fragsync(['runs', '--db', db]);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    const lines = said(r);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^fragsync runs: sync run run-writing \\(pid ${process.pid}, started [^)]+\\) holds the warehouse now `,
      ),
    );
    expect(lines[0]).toContain('`fragsync status` shows its state');
  });
});
