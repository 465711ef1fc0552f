import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `fragsync quarantine` into a file or grep (the real binary, its stdout a pipe): a value cut
 * there is lost for good, so every column (the key, the reason, the run id, the endpoint, the
 * time, the payload) is printed whole however narrow $COLUMNS is; --width still cuts, as asked.
 */
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
const KEY = `fragrance-${'k'.repeat(120)}-end`;
const REASON = `profile: ${'year must be a number; '.repeat(12)}the last words`;
const RUN_ID = 'run-20261124205649-243ec946';
const PAYLOAD = JSON.stringify({ id: 7, name: `${'n'.repeat(150)}-end`, year: 'soon' });

beforeAll(async () => {
  dir = await tempDir('fragsync-quarantine-pipe-');
  db = join(dir.path, 'q.duckdb');
  const wh = await Warehouse.open(db);
  try {
    await wh.query(
      `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
       VALUES (?, TIMESTAMP '2026-11-24 20:56:49', '/v1/fragrances/{id}', ?, ?, ?::JSON, 'response')`,
      [RUN_ID, KEY, REASON, PAYLOAD],
    );
  } finally {
    await wh.close();
  }
});
afterAll(() => dir.cleanup());

describe('fragsync quarantine, stdout not a terminal', () => {
  it('prints every column whole, the payload too, even with $COLUMNS narrow', async () => {
    for (const env of [{}, { COLUMNS: '80' }, { COLUMNS: '60' }] as Record<string, string>[]) {
      for (const payload of [false, true]) {
        const r = await fragsync(['quarantine', '--db', db, ...(payload ? ['--payload'] : [])], env);
        expect(r.code, r.stderr).toBe(EXIT.ok);
        const row = r.stdout.split('\n').find((l) => l.includes(KEY));
        for (const whole of ['/v1/fragrances/{id}', REASON, RUN_ID, '2026-11-24 20:56:49', 'response'])
          expect(row).toContain(whole);
        if (payload) expect(row).toContain(PAYLOAD);
        expect(r.stdout).toMatch(/1 row {2}\d+ columns\s/);
        expect(r.stdout).not.toContain('shown)');
      }
    }
  });

  it('--width still fits the table to the width given', async () => {
    const r = await fragsync(['quarantine', '--db', db, '--width', '80']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).not.toContain(REASON);
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });
});
