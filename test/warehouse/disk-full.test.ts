import { afterEach, beforeEach, expect, test } from 'vitest';
import { toWarehouseError } from '../../src/warehouse/db.ts';
import { runUnderFileLimit } from '../helpers/file-limit.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * No room to write, for real: DuckDB in a process under a file-size limit
 * (EFBIG, what a user's ulimit or the filesystem's largest file gives) must fail with the same
 * one-line DISK_FULL error as a full disk (ENOSPC), naming the file that could not grow.
 */

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir('fragsync-diskfull-');
});
afterEach(() => dir.cleanup());

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a DuckDB write past the file-size limit is DISK_FULL, naming the file it could not grow', async () => {
  const db = `${dir.path}/w.duckdb`;
  const r = await runUnderFileLimit(
    512,
    `import { Db, toWarehouseError } from './src/warehouse/db.ts';
     const db = await Db.open(${JSON.stringify(db)}, false);
     try {
       await db.run("CREATE TABLE t AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(200000)");
       console.log(JSON.stringify({ ok: true }));
     } catch (err) {
       const e = toWarehouseError(err, 'load', ${JSON.stringify(db)});
       console.log(JSON.stringify({ code: e.code, message: e.message }));
     }`,
  );
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { code?: string; message?: string };
  expect(out.code).toBe('DISK_FULL');
  expect(out.message).toMatch(
    new RegExp(`^load: no room to write ${escape(db)}(\\.wal)? \\(file size limit reached\\)$`),
  );
});

test('a full disk (ENOSPC) names the file DuckDB was writing, in one line', () => {
  const raw = new Error('IO Error: Could not write file "/data/w.duckdb.wal": No space left on device\nmore');
  const e = toWarehouseError(raw, 'load of run r1 failed', '/data/w.duckdb');
  expect(e.code).toBe('DISK_FULL');
  expect(e.message).toBe('load of run r1 failed: no room to write /data/w.duckdb.wal (disk full)');
});
