import { describe, expect, test } from 'vitest';
import { parseMerge, planBatch } from '../../src/warehouse/merge-plan.ts';
import { sqlFiles } from '../../src/warehouse/sql-files.ts';
import { STAGING_TABLES } from '../../src/warehouse/staging.ts';

const merges = parseMerge(sqlFiles('merge'));
const workTables = new Set(merges.flatMap((m) => (m.verb === 'creates' ? [m.table] : [])));

describe('merge plan', () => {
  test('every statement of sql/merge is driven by known staging or work tables', () => {
    expect(merges.length).toBeGreaterThan(40);
    for (const m of merges) {
      expect(m.reads.length, m.at).toBeGreaterThan(0);
      for (const t of [...m.reads, ...m.looksUp])
        expect(STAGING_TABLES.includes(t as never) || workTables.has(t), `${m.at}: ${t}`).toBe(true);
    }
  });

  test('a batch with every staging table filled runs every statement', () => {
    const plan = planBatch(merges, new Set(STAGING_TABLES), new Set());
    expect(plan.sql).toBe(merges.map((m) => m.sql).join('\n'));
    expect(plan.filled).toEqual(workTables);
  });

  test('a batch of reviews runs only the review and progress merges', () => {
    const plan = planBatch(
      merges,
      new Set(['stg_reviews_replace', 'stg_reviews_prepend', 'stg_review', 'stg_mark_fetched']),
      new Set(),
    );
    expect(plan.writes).toEqual(new Set(['reviews', 'review_totals', 'quarantine', 'sync_items']));
    expect(plan.sql).not.toMatch(/brands|removed_entities|similar_fragrances/);
  });

  test('a work table that may hold an earlier batch rows is re-created even without input', () => {
    const plan = planBatch(merges, new Set(['stg_review']), new Set(['w_fragrance']));
    expect(plan.sql).toMatch(/CREATE OR REPLACE TEMP TABLE w_fragrance/);
    expect(plan.sql).not.toMatch(/INSERT INTO fragrances/);
    expect(plan.filled.has('w_fragrance')).toBe(false);
  });

  test('each upsert carries its plain INSERT, cut once when the files are parsed', () => {
    const upserts = merges.filter((m) => /\nON CONFLICT \(/.test(m.sql));
    expect(upserts.length).toBeGreaterThan(10);
    for (const m of merges) {
      if (!upserts.includes(m) || m.verb !== 'inserts') expect(m.plainSql, m.at).toBeUndefined();
      else {
        expect(m.plainSql, m.at).not.toMatch(/ON CONFLICT/);
        expect(m.plainSql?.startsWith(`${m.sql.slice(0, m.sql.indexOf('\nON CONFLICT ('))};`), m.at).toBe(
          true,
        );
      }
    }
  });

  test('a skipped statement is left out', () => {
    const all = new Set(STAGING_TABLES);
    const plan = planBatch(merges, all, new Set(), (st) => st.table === 'similar_fragrances');
    expect(plan.sql).not.toMatch(/similar_fragrances\b(?!_overflow)/);
    expect(plan.writes.has('similar_fragrances')).toBe(false);
  });

  test('a header that names no verb and table, or an unknown clause, is refused with its place', () => {
    const file = (header: string) => [{ name: 'x.sql', sql: `-- intro\n${header}\nSELECT 1;\n` }];
    expect(() => parseMerge(file('-- merge: writes t | reads stg_x'))).toThrow(/^x\.sql:2: /);
    expect(() => parseMerge(file('-- merge: inserts t | joins stg_x'))).toThrow(/x\.sql:2: unknown .*joins/);
    expect(parseMerge(file('-- merge: inserts t | reads stg_x, w_y | looks up w_z'))).toEqual([
      {
        verb: 'inserts',
        table: 't',
        reads: ['stg_x', 'w_y'],
        looksUp: ['w_z'],
        at: 'x.sql:2',
        sql: 'SELECT 1;',
      },
    ]);
  });
});
