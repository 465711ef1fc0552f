import { describe, expect, test } from 'vitest';
import { parseCounts, parseMerge, planBatch } from '../../src/warehouse/merge-plan.ts';
import { sqlFile, sqlFiles } from '../../src/warehouse/sql-files.ts';
import { STAGING_TABLES } from '../../src/warehouse/staging.ts';

const merges = parseMerge(sqlFiles('merge'));
const workTables = new Set(merges.flatMap((m) => (m.creates ? [m.creates] : [])));

describe('merge plan', () => {
  test('every statement of sql/merge is driven by known staging or work tables', () => {
    expect(merges.length).toBeGreaterThan(40);
    for (const m of merges) {
      expect(m.reads.length, m.sql).toBeGreaterThan(0);
      for (const t of m.reads) expect(STAGING_TABLES.includes(t as never) || workTables.has(t), t).toBe(true);
      expect(m.creates !== null || m.writes !== null, m.sql).toBe(true);
    }
  });

  test('a batch with every staging table filled runs every statement', () => {
    const plan = planBatch(merges, new Set(STAGING_TABLES), new Set());
    expect(plan.sql.split(';\n').length).toBe(merges.length);
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

  test('a skipped statement is left out', () => {
    const all = new Set(STAGING_TABLES);
    const plan = planBatch(merges, all, new Set(), (st) => st.writes === 'similar_fragrances');
    expect(plan.sql).not.toMatch(/similar_fragrances/);
    expect(plan.writes.has('similar_fragrances')).toBe(false);
  });

  test('every count arm names a table and inlines nothing but the load time', () => {
    const arms = parseCounts(sqlFile('load-counts.sql'));
    expect(arms.map((a) => a.key)).toContain('removed_entities');
    for (const a of arms) expect(a.sql).toMatch(/= \$1::TIMESTAMPTZ$/);
  });
});
