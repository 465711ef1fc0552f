/**
 * The contract tables (docs/warehouse-contract.md), in the contract's order: what `export`
 * writes. Their columns are read from the database, minus lineage columns (a leading "_"),
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

export function isLineageColumn(name: string): boolean {
  return name.startsWith('_');
}
