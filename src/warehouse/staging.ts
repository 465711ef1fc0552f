import type { Cell, ColumnType } from './db.ts';

/**
 * Temp staging tables, one per row shape. Every row carries `seq`, the index of its item in
 * the batch (or of its progress mark), so merges can let the last item for a key win.
 * Dates and timestamps are staged as text and cast in the merge SQL. Head tables (`*_head`,
 * `stg_fragrance`, `stg_wearing`, `stg_reviews_*`) hold one row per list item, so that an
 * empty list still replaces what was stored; their entries (notes, similar, labels,
 * reviews, catalogue) carry only `seq`, not the head's key again: the merges take the key
 * from the head by `seq`. Every string costs the appender one native call (~1 µs), and the
 * repeated keys were a third of all staged strings.
 */
export const STAGING = {
  stg_fragrance: {
    seq: 'INTEGER',
    id: 'VARCHAR',
    name: 'VARCHAR',
    brand: 'VARCHAR',
    brand_slug: 'VARCHAR',
    perfumer: 'VARCHAR',
    perfumer_slug: 'VARCHAR',
    year: 'INTEGER',
    score: 'DOUBLE',
  },
  // The layer as its index in LAYERS (stage-rows.ts): three words, a string each per note.
  stg_fragrance_note: {
    seq: 'INTEGER',
    layer: 'INTEGER',
    position: 'INTEGER',
    note: 'VARCHAR',
  },
  stg_fragrance_accord: {
    seq: 'INTEGER',
    position: 'INTEGER',
    accord: 'VARCHAR',
    strength: 'DOUBLE',
  },
  stg_fragrance_summary: { seq: 'INTEGER', id: 'VARCHAR', name: 'VARCHAR', brand: 'VARCHAR' },
  stg_similar_head: { seq: 'INTEGER', fragrance_id: 'VARCHAR' },
  stg_similar: {
    seq: 'INTEGER',
    similar_id: 'VARCHAR',
    rank: 'INTEGER',
    similarity_score: 'DOUBLE',
  },
  stg_wearing: {
    seq: 'INTEGER',
    fragrance_id: 'VARCHAR',
    spring: 'DOUBLE',
    summer: 'DOUBLE',
    fall: 'DOUBLE',
    winter: 'DOUBLE',
  },
  stg_wearing_mood: { seq: 'INTEGER', label: 'VARCHAR', rank: 'INTEGER', score: 'DOUBLE' },
  stg_wearing_occasion: { seq: 'INTEGER', label: 'VARCHAR', rank: 'INTEGER', score: 'DOUBLE' },
  // Repeats the contract's keys cannot hold (rare): they carry their list's key themselves.
  stg_similar_overflow: {
    seq: 'INTEGER',
    fragrance_id: 'VARCHAR',
    similar_id: 'VARCHAR',
    rank: 'INTEGER',
    similarity_score: 'DOUBLE',
  },
  stg_label_overflow: {
    seq: 'INTEGER',
    fragrance_id: 'VARCHAR',
    list: 'VARCHAR',
    label: 'VARCHAR',
    rank: 'INTEGER',
    score: 'DOUBLE',
  },
  stg_reviews_replace: { seq: 'INTEGER', fragrance_id: 'VARCHAR', total: 'INTEGER', n: 'INTEGER' },
  stg_reviews_prepend: { seq: 'INTEGER', fragrance_id: 'VARCHAR', total: 'INTEGER', n: 'INTEGER' },
  // The day as days since 1970-01-01 (a number: no native call per review, no cast from text).
  stg_review: {
    seq: 'INTEGER',
    day: 'INTEGER',
    rating: 'DOUBLE',
    text: 'VARCHAR',
  },
  stg_brand: { seq: 'INTEGER', slug: 'VARCHAR', name: 'VARCHAR', country: 'VARCHAR', description: 'VARCHAR' },
  stg_catalogue_head: { seq: 'INTEGER', brand_slug: 'VARCHAR', complete: 'BOOLEAN' },
  stg_catalogue: { seq: 'INTEGER', fragrance_id: 'VARCHAR' },
  stg_perfumer: { seq: 'INTEGER', slug: 'VARCHAR', name: 'VARCHAR', nationality: 'VARCHAR', bio: 'VARCHAR' },
  stg_note: {
    seq: 'INTEGER',
    slug: 'VARCHAR',
    name: 'VARCHAR',
    family: 'VARCHAR',
    description: 'VARCHAR',
    has_description: 'BOOLEAN',
  },
  stg_accord: { seq: 'INTEGER', slug: 'VARCHAR', name: 'VARCHAR' },
  stg_chart: { seq: 'INTEGER', slug: 'VARCHAR', title: 'VARCHAR' },
  stg_chart_head: { seq: 'INTEGER', chart_slug: 'VARCHAR', snapshot_date: 'VARCHAR' },
  stg_chart_entry: {
    seq: 'INTEGER',
    chart_slug: 'VARCHAR',
    snapshot_date: 'VARCHAR',
    rank: 'INTEGER',
    fragrance_id: 'VARCHAR',
    name: 'VARCHAR',
    brand: 'VARCHAR',
    score: 'DOUBLE',
  },
  stg_chart_entry_overflow: {
    seq: 'INTEGER',
    chart_slug: 'VARCHAR',
    snapshot_date: 'VARCHAR',
    position: 'INTEGER',
    rank: 'INTEGER',
    fragrance_id: 'VARCHAR',
    name: 'VARCHAR',
    brand: 'VARCHAR',
    score: 'DOUBLE',
  },
  stg_review_digest: { seq: 'INTEGER', fragrance_id: 'VARCHAR', raw: 'VARCHAR' },
  stg_removal: { seq: 'INTEGER', entity: 'VARCHAR', key: 'VARCHAR' },
  stg_quarantine: {
    seq: 'INTEGER',
    endpoint: 'VARCHAR',
    key: 'VARCHAR',
    reason: 'VARCHAR',
    raw: 'VARCHAR',
    scope: 'VARCHAR',
  },
  stg_api_call: {
    seq: 'INTEGER',
    at: 'VARCHAR',
    method: 'VARCHAR',
    endpoint: 'VARCHAR',
    status: 'INTEGER',
    cost_cents: 'INTEGER',
    quota_remaining: 'INTEGER',
    call_key: 'VARCHAR',
  },
  stg_mark_fetched: { seq: 'INTEGER', entity: 'VARCHAR', key: 'VARCHAR', dataset: 'VARCHAR' },
  // Stale marks again, apart (rare: a nightly's signals), so that the statement clearing fetch
  // times runs only in the batches that have one, not in every batch with fetched marks.
  stg_mark_stale: { seq: 'INTEGER', entity: 'VARCHAR', key: 'VARCHAR', dataset: 'VARCHAR' },
  stg_mark_walk: {
    seq: 'INTEGER',
    walk: 'VARCHAR',
    page: 'INTEGER',
    total: 'INTEGER',
    done: 'BOOLEAN',
    page_size: 'INTEGER',
    kept_pages: 'VARCHAR',
  },
  stg_mark_discovered: { seq: 'INTEGER', entity: 'VARCHAR', key: 'VARCHAR', source: 'VARCHAR' },
} as const satisfies Record<string, Record<string, ColumnType>>;

export type StagingTable = keyof typeof STAGING;

export const STAGING_TABLES = Object.keys(STAGING) as StagingTable[];

export function columnTypes(table: StagingTable): ColumnType[] {
  return Object.values(STAGING[table]);
}

/** DDL generated from the definitions above, so appender column order can never drift from it. */
export function stagingDdl(tables: readonly StagingTable[]): string {
  return tables
    .map((t) => {
      const cols = Object.entries(STAGING[t]).map(([name, type]) => `"${name}" ${type}`);
      return `CREATE OR REPLACE TEMP TABLE ${t} (${cols.join(', ')});`;
    })
    .join('\n');
}

/**
 * One staging table's rows, column by column. A sync stages millions of rows: an array per
 * row, and then one per column for every appender chunk, were much of the loader thread's
 * garbage collection. Columns are what the appender fills anyway.
 */
export class StagedColumns {
  readonly cols: Cell[][];
  length = 0;

  constructor(width: number) {
    if (width > 9) throw new Error(`a staging table has at most 9 columns (add), got ${width}`);
    this.cols = Array.from({ length: width }, () => []);
  }

  /** One row, values in the table's column order (no array per row; missing values are null). */
  add(a: Cell, b?: Cell, c?: Cell, d?: Cell, e?: Cell, f?: Cell, g?: Cell, h?: Cell, i?: Cell): void {
    const k = this.cols;
    const w = k.length;
    k[0]!.push(a);
    if (w > 1) k[1]!.push(b ?? null);
    if (w > 2) k[2]!.push(c ?? null);
    if (w > 3) k[3]!.push(d ?? null);
    if (w > 4) k[4]!.push(e ?? null);
    if (w > 5) k[5]!.push(f ?? null);
    if (w > 6) k[6]!.push(g ?? null);
    if (w > 7) k[7]!.push(h ?? null);
    if (w > 8) k[8]!.push(i ?? null);
    this.length++;
  }
}
