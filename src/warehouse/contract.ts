/**
 * The contract tables (docs/warehouse-contract.md), in the contract's order: what `export`
 * writes, with the overflow tables below. Their columns are read from the database, minus lineage columns (a leading "_"),
 * so a column added by a migration is exported without touching this list.
 */
export const CONTRACT_TABLES = [
  'fragrances',
  'fragrance_notes',
  'fragrance_accords',
  'brands',
  'brand_fragrances',
  'perfumers',
  'notes',
  'accords',
  'charts',
  'chart_entries',
  'reviews',
  'similar_fragrances',
  'wearing_stats',
  'wearing_moods',
  'wearing_occasions',
  'sync_runs',
  'api_calls',
] as const;

export type ContractTable = (typeof CONTRACT_TABLES)[number];

/**
 * Entries the contract's primary keys cannot hold as a second row (tied chart ranks, an id or
 * a label repeated in one list), kept beside their contract table (docs/data-dictionary.md,
 * "Key collisions"). Exported beside the contract tables: without them a Parquet reader would
 * miss entries the service sent (a chart's tied entries, say), which the DuckDB file keeps.
 */
export const OVERFLOW_TABLES = [
  'chart_entries_overflow',
  'similar_fragrances_overflow',
  'wearing_labels_overflow',
] as const;

/** What `export --parquet` writes: the contract tables, then the overflow tables. */
export const EXPORTED_TABLES: readonly string[] = [...CONTRACT_TABLES, ...OVERFLOW_TABLES];

export function isLineageColumn(name: string): boolean {
  return name.startsWith('_');
}
