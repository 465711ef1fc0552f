import type { DuckDBConnection } from '@duckdb/node-api';
import { rows } from './db.ts';
import { KeyHashBits } from './key-hash-bits.ts';
import type { MergeStatement } from './merge-plan.ts';
import type { StagedRows } from './stage-rows.ts';
import type { StagingTable } from './staging.ts';

/**
 * The tables whose stored keys the loader follows. `key` names the set of keys (shared by
 * tables keyed alike: a fragrance id is one entry, whatever it is called in the table),
 * `column` the table's key column (default: `key`). Keys come from column 1 of `staging`;
 * the keys that get rows, from column 1 of each of `rowsFrom` (default: `staging`).
 */
interface Followed {
  table: string;
  key: string;
  column?: string;
  via: string;
  staging: StagingTable;
  rowsFrom?: readonly StagingTable[];
}

/**
 * Child lists replaced as a whole: `DELETE FROM table WHERE key IN (SELECT key FROM via)`,
 * then insert. The DELETE scans the whole table, and in a first sync nearly every list is
 * new, so it is skipped when no key of the batch can have rows. An overflow table gets rows
 * only for lists with repeats. Last, the score history: a profile's UPDATE closes its open
 * row when the score moved, joining the whole history; a fragrance's first profile has none.
 */
const REPLACED: readonly Followed[] = [
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
  ).map(([table, via, rowsFrom]) => ({
    table,
    key: 'fragrance_id',
    via,
    staging: via,
    rowsFrom: [rowsFrom],
  })),
  { table: 'fragrance_score_history', key: 'fragrance_id', via: 'w_fragrance', staging: 'stg_fragrance' },
];

/**
 * Upserts (`INSERT ... ON CONFLICT (key) DO UPDATE`) that are a batch's first write of their
 * table: when no key of the batch can be stored, nothing conflicts and the statement runs
 * as a plain INSERT, which costs DuckDB about a third of the upsert (3.7 ms less per
 * 500 profiles, measured). Other statements writing the same table (summaries, review
 * prepends) run after it and keep their ON CONFLICT: they may meet this batch's rows.
 */
const UPSERTED: readonly Followed[] = [
  {
    table: 'fragrances',
    key: 'fragrance_id',
    column: 'id',
    via: 'w_fragrance',
    staging: 'stg_fragrance',
    rowsFrom: ['stg_fragrance', 'stg_fragrance_summary'],
  },
  { table: 'wearing_stats', key: 'fragrance_id', via: 'stg_wearing', staging: 'stg_wearing' },
  {
    table: 'review_totals',
    key: 'fragrance_id',
    via: 'stg_reviews_replace',
    staging: 'stg_reviews_replace',
    rowsFrom: ['stg_reviews_replace', 'stg_reviews_prepend'],
  },
];

const FOLLOWED: readonly Followed[] = [...REPLACED, ...UPSERTED];

/**
 * A superset of the keys that have rows in each replaced table: read once when the
 * warehouse opens, then every key a committed batch staged is added (rows only ever reach
 * these tables through those staging tables). Removals never shrink it: a superset only
 * costs a DELETE that finds nothing.
 *
 * One table per key column, from the key to a bit per table, not a set per table: a 120k
 * catalogue puts each fragrance id in eight of these tables, and eight sets held about a
 * million entries and as many copies of the id strings in the loader's heap (the growth of
 * its old generation with the catalogue, session 8 in docs/benchmarks.md). The table keeps a
 * hash of each key, not the key (key-hash-bits.ts): two keys of one hash only make a
 * statement run that could have been skipped.
 */
export class StoredKeys {
  /** Per key column, key to the bits (1 << index in FOLLOWED) of the tables it may have rows in. */
  private readonly keys = new Map<string, KeyHashBits>();

  private constructor() {
    for (const r of FOLLOWED) if (!this.keys.has(r.key)) this.keys.set(r.key, new KeyHashBits());
  }

  static async read(c: DuckDBConnection): Promise<StoredKeys> {
    const stored = new StoredKeys();
    for (const [i, r] of FOLLOWED.entries()) {
      const found = await rows<{ k: string }>(c, `SELECT DISTINCT ${r.column ?? r.key} AS k FROM ${r.table}`);
      stored.add(
        r.key,
        1 << i,
        found.map((x) => x.k),
      );
    }
    return stored;
  }

  /** The replace-DELETEs (and the history's closing UPDATE) of this batch that certainly change nothing. */
  skippable(staged: StagedRows): (st: MergeStatement) => boolean {
    const none = this.noneStored(staged, REPLACED, 0);
    return (st) =>
      (st.verb === 'deletes' || st.verb === 'updates') &&
      st.reads.length === 1 &&
      none.has(`${st.table}<${st.reads[0]}`);
  }

  /** The SQL each statement runs as: the upserts that certainly meet no stored key, without ON CONFLICT. */
  rewrite(staged: StagedRows): (st: MergeStatement) => string {
    const none = this.noneStored(staged, UPSERTED, REPLACED.length);
    return (st) =>
      st.verb === 'inserts' && st.reads.length === 1 && none.has(`${st.table}<${st.reads[0]}`)
        ? (st.plainSql ?? st.sql)
        : st.sql;
  }

  /** `table<via` of each of `tables` (bits from `first` on) that no key of the batch may have rows in. */
  private noneStored(staged: StagedRows, tables: readonly Followed[], first: number): Set<string> {
    const none = new Set<string>();
    for (const [i, r] of tables.entries()) {
      const have = this.keys.get(r.key)!;
      const bit = 1 << (first + i);
      if (!staged[r.staging].cols[1]!.some((k) => (have.get(String(k)) & bit) !== 0))
        none.add(`${r.table}<${r.via}`);
    }
    return none;
  }

  /** After a commit: the batch's keys may now have rows. */
  record(staged: StagedRows): void {
    for (const [i, r] of FOLLOWED.entries())
      for (const t of r.rowsFrom ?? [r.staging]) this.add(r.key, 1 << i, staged[t].cols[1]! as string[]);
  }

  private add(column: string, bit: number, keys: readonly string[]): void {
    const have = this.keys.get(column)!;
    for (const k of keys) have.set(String(k), bit);
  }
}
