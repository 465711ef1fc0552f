import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { toWarehouseError } from '../../src/warehouse/warehouse-error.ts';
import { runUnderFileLimit } from '../helpers/sync-process.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * No room to write, for real: DuckDB and the journal in a process under a file-size limit
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
    `import { Db } from './src/warehouse/db.ts';
     import { toWarehouseError } from './src/warehouse/warehouse-error.ts';
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

test('a journal append without room throws DISK_FULL naming the segment, and leaves only whole lines', async () => {
  const db = `${dir.path}/w.duckdb`;
  const r = await runUnderFileLimit(
    4,
    `import { Journal } from './src/warehouse/journal.ts';
     const journal = new Journal(${JSON.stringify(db)});
     const line = (i) => JSON.stringify({ runId: 'r1', items: [], progress: [], pad: String(i).repeat(900) });
     let appended = 0;
     let error = null;
     try {
       for (; appended < 100; appended++) journal.append(line(appended % 10));
     } catch (err) {
       error = { code: err.code, message: err.message };
     }
     // Room again (a fresh segment under the limit): appending goes on where it stopped.
     const sealed = journal.seal();
     journal.append(line(7));
     journal.close();
     console.log(JSON.stringify({ appended, error, sealed: sealed.path }));`,
  );
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as {
    appended: number;
    error: { code?: string; message: string };
    sealed: string;
  };
  expect(out.appended).toBe(4); // 4 KiB hold four lines of about 960 bytes
  expect(out.error.code).toBe('DISK_FULL');
  expect(out.error.message).toMatch(
    new RegExp(
      `^journal: no room to write ${escape(db)}\\.journal-[0-9a-f-]+\\.jsonl \\(file size limit reached\\)$`,
    ),
  );
  const text = readFileSync(out.sealed, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.split('\n').slice(0, -1);
  expect(lines).toHaveLength(4);
  for (const l of lines) expect(() => JSON.parse(l) as unknown).not.toThrow();
});
