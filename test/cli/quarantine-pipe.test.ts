import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `fragsync quarantine` into a file or grep (the real binary, its stdout a pipe): the key and
 * the reason are what a record is found and understood by, so they are printed whole however
 * narrow $COLUMNS is; --width still cuts them, as asked.
 */
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
const KEY = `fragrance-${'k'.repeat(120)}-end`;
const REASON = `profile: ${'year must be a number; '.repeat(12)}the last words`;

beforeAll(async () => {
  dir = await tempDir('fragsync-quarantine-pipe-');
  db = join(dir.path, 'q.duckdb');
  const wh = await Warehouse.open(db);
  try {
    await wh.query(
      `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
       VALUES ('r1', now(), '/v1/fragrances/{id}', ?, ?, '{}'::JSON, 'response')`,
      [KEY, REASON],
    );
  } finally {
    await wh.close();
  }
});
afterAll(() => dir.cleanup());

describe('fragsync quarantine, stdout not a terminal', () => {
  it('prints the key and the reason whole, even with $COLUMNS narrow', async () => {
    for (const env of [{}, { COLUMNS: '80' }] as Record<string, string>[]) {
      const r = await fragsync(['quarantine', '--db', db], env);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const row = r.stdout.split('\n').find((l) => l.includes(KEY));
      expect(row).toContain('/v1/fragrances/{id}');
      expect(row).toContain(REASON);
      expect(r.stdout).toMatch(/1 row {2}\d+ columns/);
    }
  });

  it('--width still fits the table to the width given', async () => {
    const r = await fragsync(['quarantine', '--db', db, '--width', '80']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).not.toContain(REASON);
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });
});
