import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/** Rows with NULLs, lists, CJK text and a whole double (the cases analysts compare with the DuckDB shell). */
const MIXED = `SELECT * FROM (VALUES
  (1, 'Chanel', ['rose', 'jasmine'], 4.5::DOUBLE),
  (2, NULL, NULL, NULL),
  (3, '香水の森', ['柚子', 'a, b'], 3.0::DOUBLE)
) t(id, brand, notes, score) ORDER BY id`;

const TEN_THOUSAND = `SELECT i AS n, 'row ' || i AS label FROM range(10000) t(i) ORDER BY i`;

let dir: { path: string; cleanup(): Promise<void> };
let db: string;
beforeAll(async () => {
  dir = await tempDir('fragsync-query-');
  db = join(dir.path, 'wh.duckdb');
  await (await Warehouse.open(db)).close();
});
afterAll(() => dir.cleanup());

const query = (args: string[], input?: string) =>
  fragsync(['query', '--db', db, ...args], {}, input === undefined ? {} : { input });

/** Every line of a box takes the same terminal width: wide characters are counted as two. */
function expectAligned(table: string, width?: number): void {
  const widths = table
    .trimEnd()
    .split('\n')
    .map((l) => stringWidth(l));
  expect(new Set(widths).size, table).toBe(1);
  if (width !== undefined) expect(widths[0]).toBeLessThanOrEqual(width);
}

describe('fragsync query: the table', () => {
  it('NULL as NULL, lists as DuckDB prints them, CJK aligned, names over types, the row count', async () => {
    const r = await query([MIXED]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toBe(
      [
        '┌─────────┬──────────┬─────────────────────┬────────┐',
        '│   id    │  brand   │        notes        │ score  │',
        '│ integer │ varchar  │      varchar[]      │ double │',
        '├─────────┼──────────┼─────────────────────┼────────┤',
        "│       1 │ Chanel   │ ['rose', 'jasmine'] │    4.5 │",
        '│       2 │ NULL     │ NULL                │   NULL │',
        "│       3 │ 香水の森 │ ['柚子', 'a, b']    │    3.0 │",
        '├─────────┴──────────┴─────────────────────┴────────┤',
        '│ 3 rows  4 columns                                 │',
        '└───────────────────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
    expectAligned(r.stdout);
  });

  it('an empty result still shows its columns and types', async () => {
    const r = await query(["SELECT 1 AS a, 'x' AS b, [1] AS c WHERE false"]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toBe(
      [
        '┌─────────┬─────────┬───────────┐',
        '│    a    │    b    │     c     │',
        '│ integer │ varchar │ integer[] │',
        '├─────────┴─────────┴───────────┤',
        '│ 0 rows  3 columns             │',
        '└───────────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('10,000 rows: the first and last 20, a row of dots between, and the note', async () => {
    const r = await query([TEN_THOUSAND]);
    expect(r.code).toBe(EXIT.ok);
    const lines = r.stdout.trimEnd().split('\n');
    const cells = lines.filter((l) => l.startsWith('│')).map((l) => l.split('│').map((c) => c.trim()));
    const values = cells.slice(2, -1).map((c) => c[1]);
    expect(values).toEqual([
      ...Array.from({ length: 20 }, (_, i) => String(i)),
      '·',
      '·',
      '·',
      ...Array.from({ length: 20 }, (_, i) => String(9980 + i)),
    ]);
    expect(lines.at(-2)).toMatch(/^│ 10000 rows \(40 shown\) {2}2 columns\s+│$/);
    expectAligned(r.stdout);
    const all = await query([TEN_THOUSAND, '--max-rows', '0']);
    expect(all.stdout).toMatch(/│ +9999 │ row 9999 +│/);
    expect(all.stdout.split('\n').filter((l) => /^│ +\d+ │/.test(l))).toHaveLength(10_000);
    expect(all.stdout).toMatch(/│ 10000 rows {2}2 columns\s+│/);
  });

  it('long values are cut with an ellipsis to the width, wide characters included', async () => {
    const long = 'Lorem ipsum dolor sit amet '.repeat(8);
    const r = await query([
      `SELECT '${long}' AS text, '${'香'.repeat(40)}' AS cjk, 42 AS n`,
      '--width',
      '60',
    ]);
    expect(r.code).toBe(EXIT.ok);
    expectAligned(r.stdout, 60);
    const row = r.stdout.split('\n')[4] as string;
    expect(row).toMatch(/^│ Lorem ipsum.*… │ 香+…? *│ +42 │$/);
    expect(row).toContain('…');
  });

  it('too many columns for the width: the middle ones give way to a … column', async () => {
    const cols = Array.from({ length: 30 }, (_, i) => `${i} AS column_${i}`).join(', ');
    const r = await query([`SELECT ${cols}`, '--width', '80']);
    expect(r.code).toBe(EXIT.ok);
    expectAligned(r.stdout, 80);
    expect(r.stdout).toMatch(/│ column_0 │/);
    expect(r.stdout).toMatch(/│ colu… │\s*$|column_29|colu…/m);
    expect(r.stdout).toMatch(/│ … │/);
    expect(r.stdout).toMatch(/1 row {2}30 columns \(\d+ shown\)/);
  });
});

describe('fragsync query: other formats', () => {
  it('csv: RFC 4180 quoting, NULL as an empty field, every row', async () => {
    const r = await query([MIXED, '--format', 'csv']);
    expect(r.stdout).toBe(
      [
        'id,brand,notes,score',
        `1,Chanel,"['rose', 'jasmine']",4.5`,
        '2,,,',
        `3,香水の森,"['柚子', 'a, b']",3.0`,
        '',
      ].join('\r\n'),
    );
    const big = await query([TEN_THOUSAND, '--format', 'csv']);
    expect(big.stdout.trimEnd().split('\r\n')).toHaveLength(10_001);
  });

  it('json: one array; jsonl (and --json): an object per line; lists as arrays, NULL as null', async () => {
    const expected = [
      { id: 1, brand: 'Chanel', notes: ['rose', 'jasmine'], score: 4.5 },
      { id: 2, brand: null, notes: null, score: null },
      { id: 3, brand: '香水の森', notes: ['柚子', 'a, b'], score: 3 },
    ];
    const json = await query([MIXED, '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const jsonl = await query([MIXED, '--format', 'jsonl']);
    expect(
      jsonl.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(expected);
    expect((await query([MIXED, '--json'])).stdout).toBe(jsonl.stdout);
    const big = await query([TEN_THOUSAND, '--format', 'json']);
    const rows = JSON.parse(big.stdout) as { n: number }[];
    expect(rows).toHaveLength(10_000);
    expect(rows[9999]).toEqual({ n: 9999, label: 'row 9999' });
    const empty = await query(['SELECT 1 AS a WHERE false', '--format', 'json']);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('markdown: a GitHub table, numbers right-aligned, NULL as NULL', async () => {
    const r = await query([MIXED, '--format', 'markdown']);
    expect(r.stdout).toBe(
      [
        '| id | brand | notes | score |',
        '| ---: | --- | --- | ---: |',
        "| 1 | Chanel | ['rose', 'jasmine'] | 4.5 |",
        '| 2 | NULL | NULL | NULL |',
        "| 3 | 香水の森 | ['柚子', 'a, b'] | 3.0 |",
        '',
      ].join('\n'),
    );
  });

  it('--max-rows cuts any format and says so on stderr', async () => {
    const r = await query([TEN_THOUSAND, '--format', 'csv', '--max-rows', '5']);
    expect(r.stdout.trimEnd().split('\r\n')).toHaveLength(6);
    expect(r.stderr).toBe('fragsync query: 5 of 10000 rows printed (--max-rows 5)\n');
  });
});

describe('fragsync query: where the SQL comes from, and errors', () => {
  it('reads the SQL from --file, from - and from a pipe', async () => {
    const file = join(dir.path, 'q.sql');
    await writeFile(file, '-- a report\nSELECT 41 + 1 AS answer;\n');
    const expected = '{"answer":42}\n';
    expect((await query(['--file', file, '--json'])).stdout).toBe(expected);
    expect((await query(['-', '--json'], 'SELECT 42 AS answer')).stdout).toBe(expected);
    expect((await query(['--json'], 'SELECT 42 AS answer')).stdout).toBe(expected);
  });

  it('bad SQL, a write, and two sources of SQL are one line each, exit 2', async () => {
    const bad = await query(['SELEC 1']);
    expect(bad.code).toBe(EXIT.badInput);
    // DuckDB's message, alone: no error code, no "Failed to extract statements", no LINE pointer.
    expect(bad.stderr).toBe(
      'fragsync query: the SQL failed: Parser Error: syntax error at or near "SELEC"\n',
    );
    const unknown = await query(['SELECT nope FROM range(1)']);
    expect(unknown.code).toBe(EXIT.badInput);
    expect(unknown.stderr).toMatch(
      /^fragsync query: the SQL failed: Binder Error: Referenced column "nope" not found in FROM clause! Candidate bindings: .*\n$/,
    );
    const write = await query(['CREATE TABLE t (a INTEGER)']);
    expect(write.code).toBe(EXIT.badInput);
    expect(write.stderr).toMatch(
      /^fragsync query: the SQL failed: Invalid Input Error: .*read-only mode! \(fragsync query only reads\)\n$/,
    );
    const both = await query(['SELECT 1', '--file', join(dir.path, 'q.sql')]);
    expect(both.code).toBe(EXIT.badInput);
    expect(both.stderr).toBe('fragsync query: give the SQL either as an argument or with --file, not both\n');
    const none = await query(['--file', join(dir.path, 'missing.sql')]);
    expect(none.stderr).toMatch(
      /^fragsync query: cannot read the SQL from --file \S+missing\.sql \(ENOENT\)\n$/,
    );
  });

  it('several statements are refused before any runs, in every format; one with a trailing ; is one', async () => {
    for (const format of ['table', 'csv', 'json']) {
      const two = await query(['SELECT 1 AS a; SELECT 2 AS b', '--format', format]);
      expect(two.code).toBe(EXIT.badInput);
      expect(two.stdout).toBe('');
      expect(two.stderr).toBe(
        'fragsync query: the SQL holds 2 statements; one query runs one (send each on its own, ' +
          'or join the results with UNION ALL or a WITH clause)\n',
      );
    }
    // Refused before the first runs: its error would otherwise come first.
    const bad = await query(['SELECT nope FROM range(1); SELECT 2']);
    expect(bad.stderr).toMatch(/^fragsync query: the SQL holds 2 statements;/);
    for (const nothing of [';;', '/* a comment only */']) {
      const empty = await query([nothing]);
      expect(empty.code).toBe(EXIT.badInput);
      expect(empty.stderr).toBe('fragsync query: no SQL statement to run (only comments or semicolons)\n');
    }
    expect((await query(['SELECT 3 AS c;  -- done', '--json'])).stdout).toBe('{"c":3}\n');
  });
});
