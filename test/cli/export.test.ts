import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { CONTRACT_TABLES } from '../../src/warehouse/contract.ts';
import { fragsync } from '../helpers/cli.ts';
import { batch, freshWarehouse, profile } from '../warehouse/fixtures.ts';

/** `fragsync export --parquet DIR` as a real process: it never deletes a file it did not write. */
let fx: Awaited<ReturnType<typeof freshWarehouse>>;
beforeAll(async () => {
  fx = await freshWarehouse();
  await fx.wh.load(batch([profile('f1'), profile('f2')]));
  await fx.wh.close();
});
afterAll(() => fx.cleanup());

/** The contract tables, and beside them the overflow tables (entries the contract's keys cannot hold). */
const OVERFLOW = ['chart_entries_overflow', 'similar_fragrances_overflow', 'wearing_labels_overflow'];
const EXPORTED = [...CONTRACT_TABLES, ...OVERFLOW].map((t) => `${t}.parquet`).sort();
const exportTo = (dir: string) => fragsync(['export', '--parquet', dir, '--db', fx.path]);
/** The folder's entries, and nothing left beside it by the export (temp or old folders). */
async function entries(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

describe('fragsync export --parquet DIR', () => {
  it("a sync that would export into a folder holding the user's files stops before it spends a call", async () => {
    const sim = await startSimulator({ fragrances: 5 });
    try {
      const dir = join(fx.dir, 'e');
      await mkdir(dir);
      await writeFile(join(dir, 'mine.csv'), 'a,b');
      const db = join(fx.dir, 'sync.duckdb');
      const r = await fragsync(['sync', '--base-url', sim.url, '--db', db, '--parquet', dir], {
        FRAGSYNC_API_KEY: 'sim-key',
      });
      expect(r.code).toBe(EXIT.badInput);
      expect(r.stderr).toMatch(/holds files an export does not write \('mine\.csv'\)/);
      expect(sim.ledger().calls).toBe(0);
      expect(await entries(dir)).toEqual(['mine.csv']);
    } finally {
      await sim.close();
    }
  });

  it("refuses a folder holding the user's files, in one line with exit 2, and leaves it as it was", async () => {
    const parent = join(fx.dir, 'a');
    const dir = join(parent, 'reports');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await writeFile(join(dir, 'fragrances.parquet'), 'also mine, by chance named like a table');
    await mkdir(join(dir, 'q1'));
    const r = await exportTo(dir);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `fragsync export: Parquet export folder ${dir} holds files an export does not write ('notes.txt', 'q1'); export into a new or empty folder, or one an earlier export wrote`,
    ]);
    expect(await entries(dir)).toEqual(['fragrances.parquet', 'notes.txt', 'q1']);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(await entries(parent)).toEqual(['reports']);
  });

  it('refuses a path that is a file', async () => {
    const file = join(fx.dir, 'a-file');
    await writeFile(file, 'x');
    const r = await exportTo(file);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(/a-file exists and is not a folder\n$/);
    expect(await readFile(file, 'utf8')).toBe('x');
  });

  it('refuses a path under a file in one line, naming the file, with exit 2', async () => {
    const file = join(fx.dir, 'b-file');
    await writeFile(file, 'x');
    const r = await exportTo(join(file, 'p'));
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/cannot use \S*b-file \(Parquet export folder\): it is a file, not a folder\n$/);
    expect(await readFile(file, 'utf8')).toBe('x');
  });

  it('writes into a new folder and into an empty one', async () => {
    const fresh = join(fx.dir, 'b', 'new');
    expect((await exportTo(fresh)).code).toBe(EXIT.ok);
    expect(await entries(fresh)).toEqual(EXPORTED);
    const empty = join(fx.dir, 'c');
    await mkdir(empty);
    const r = await exportTo(empty);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^exported 20 tables \(\d+ rows\) to \S+\/c\n$/);
    expect(await entries(empty)).toEqual(EXPORTED);
    expect(await entries(fx.dir)).not.toContainEqual(expect.stringMatching(/^\.c\./));
  });

  it('--json: one JSON object, the folder and the rows of each table written', async () => {
    const dir = join(fx.dir, 'json');
    const r = await fragsync(['export', '--parquet', dir, '--db', fx.path, '--json']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const j = JSON.parse(r.stdout) as { dir: string; rows: number; tables: Record<string, number> };
    expect(j.dir).toBe(dir);
    expect(
      Object.keys(j.tables)
        .map((t) => `${t}.parquet`)
        .sort(),
    ).toEqual(await entries(dir));
    expect(j.tables.fragrances).toBe(2);
    expect(j.rows).toBe(Object.values(j.tables).reduce((a, b) => a + b, 0));
  });

  it('replaces an earlier export; once the user adds a file there, refuses it', async () => {
    const dir = join(fx.dir, 'd');
    expect((await exportTo(dir)).code).toBe(EXIT.ok);
    const first = await readFile(join(dir, 'fragrances.parquet'));
    expect((await exportTo(dir)).code).toBe(EXIT.ok);
    expect(await entries(dir)).toEqual(EXPORTED);
    expect((await readFile(join(dir, 'fragrances.parquet'))).length).toBe(first.length);
    expect((await entries(fx.dir)).filter((n) => n.startsWith('.d.'))).toEqual([]);
    await writeFile(join(dir, 'README'), 'what these files are');
    const r = await exportTo(dir);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(/holds files an export does not write \('README'\)/);
    expect(await entries(dir)).toEqual([...EXPORTED, 'README'].sort());
  });
});
