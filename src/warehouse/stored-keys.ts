import type { DuckDBConnection } from '@duckdb/node-api';
import { rows } from './db.ts';
import type { MergeStatement } from './merge-plan.ts';
import type { StagedRows } from './stage-rows.ts';
import type { StagingTable } from './staging.ts';

/**
 * Child lists replaced as a whole: `DELETE FROM table WHERE key IN (SELECT key FROM via)`,
 * then insert. The DELETE scans the whole table, and in a first sync nearly every list is
 * new, so it is skipped when no key of the batch can have rows. Keys come from column 1
 * (`staging`'s key) of the staging table; the keys that get rows, from column 1 of
 * `rowsFrom` (default: `staging`): an overflow table gets rows only for lists with repeats.
 */
const REPLACED: readonly {
  table: string;
  key: string;
  via: string;
  staging: StagingTable;
  rowsFrom?: StagingTable;
}[] = [
  { table: 'fragrance_notes', key: 'fragrance_id', via: 'w_fragrance', staging: 'stg_fragrance' },
  { table: 'fragrance_accords', key: 'fragrance_id', via: 'w_fragrance', staging: 'stg_fragrance' },
  { table: 'similar_fragrances', key: 'fragrance_id', via: 'stg_similar_head', staging: 'stg_similar_head' },
  { table: 'wearing_moods', key: 'fragrance_id', via: 'stg_wearing', staging: 'stg_wearing' },
  { table: 'wearing_occasions', key: 'fragrance_id', via: 'stg_wearing', staging: 'stg_wearing' },
  { table: 'reviews', key: 'fragrance_id', via: 'stg_reviews_replace', staging: 'stg_reviews_replace' },
  { table: 'brand_fragrances', key: 'brand_slug', via: 'stg_catalogue_head', staging: 'stg_catalogue_head' },
  ...(
    [
      ['similar_fragrances_overflow', 'stg_similar_head', 'stg_similar_overflow'],
      ['wearing_labels_overflow', 'stg_wearing', 'stg_label_overflow'],
    ] as const
  ).map(([table, via, rowsFrom]) => ({ table, key: 'fragrance_id', via, staging: via, rowsFrom })),
];

/**
 * A superset of the keys that have rows in each replaced table: read once when the
 * warehouse opens, then every key a committed batch staged is added (rows only ever reach
 * these tables through those staging tables). Removals never shrink it: a superset only
 * costs a DELETE that finds nothing.
 *
 * One map per key column, from the key to a bit per table, not a set per table: a 120k
 * catalogue puts each fragrance id in eight of these tables, and eight sets held about a
 * million entries and as many copies of the id strings in the loader's heap (the growth of
 * its old generation with the catalogue, session 8 in docs/benchmarks.md).
 */
export class StoredKeys {
  /** Per key column, key to the bits (1 << index in REPLACED) of the tables it may have rows in. */
  private readonly keys = new Map<string, Map<string, number>>();

  private constructor() {
    for (const r of REPLACED) if (!this.keys.has(r.key)) this.keys.set(r.key, new Map());
  }

  static async read(c: DuckDBConnection): Promise<StoredKeys> {
    const stored = new StoredKeys();
    for (const [i, r] of REPLACED.entries()) {
      const found = await rows<{ k: string }>(c, `SELECT DISTINCT ${r.key} AS k FROM ${r.table}`);
      stored.add(
        r.key,
        1 << i,
        found.map((x) => x.k),
      );
    }
    return stored;
  }

  /** The replace-DELETEs of this batch that certainly delete nothing. */
  skippable(staged: StagedRows): (st: MergeStatement) => boolean {
    const skip = new Set<string>();
    for (const [i, r] of REPLACED.entries()) {
      const have = this.keys.get(r.key)!;
      const bit = 1 << i;
      if (!staged[r.staging].cols[1]!.some((k) => ((have.get(k as string) ?? 0) & bit) !== 0))
        skip.add(`${r.table}<${r.via}`);
    }
    return (st) => st.verb === 'deletes' && st.reads.length === 1 && skip.has(`${st.table}<${st.reads[0]}`);
  }

  /** After a commit: the batch's keys may now have rows. */
  record(staged: StagedRows): void {
    for (const [i, r] of REPLACED.entries())
      this.add(r.key, 1 << i, staged[r.rowsFrom ?? r.staging].cols[1]! as string[]);
  }

  private add(column: string, bit: number, keys: readonly string[]): void {
    const have = this.keys.get(column)!;
    for (const k of keys) have.set(k, (have.get(k) ?? 0) | bit);
  }
}
