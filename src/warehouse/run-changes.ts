/**
 * What one run did to the contract tables: rows added, changed and removed per table, and the
 * items (fragrances, brands, ...) any of those rows belong to. The loader's own counts say how
 * many rows a batch wrote, but a list is replaced as a whole and a profile is rewritten even
 * when nothing in it moved, so "written" is not "changed". Instead the run takes a baseline as
 * it opens (per row: its owner, its key and a digest of its contract columns, in a temp table
 * of the writer's connection) and compares the tables with it when it ends.
 *
 * Cost: one scan of the data tables at each end of the run and ~17 bytes a row of baseline in
 * DuckDB's memory (about 130 MB at 120k fragrances, 7.4M rows), dropped when the run ends.
 * The ledger (api_calls, sync_runs) only grows and is left out: the summary counts its calls.
 */
import type { WarehouseHandle } from './handle.ts';
import { isLineageColumn } from './contract.ts';

/** Per table: the item a row belongs to (entity and key column) and its natural key (null: the whole row). */
const TABLES: Record<string, { entity: string; owner: string; key: string[] | null }> = {
  fragrances: { entity: 'fragrance', owner: 'id', key: ['id'] },
  fragrance_notes: { entity: 'fragrance', owner: 'fragrance_id', key: ['layer', 'position'] },
  fragrance_accords: { entity: 'fragrance', owner: 'fragrance_id', key: ['position'] },
  brands: { entity: 'brand', owner: 'slug', key: ['slug'] },
  brand_fragrances: { entity: 'brand', owner: 'brand_slug', key: ['fragrance_id'] },
  perfumers: { entity: 'perfumer', owner: 'slug', key: ['slug'] },
  notes: { entity: 'note', owner: 'slug', key: ['slug'] },
  accords: { entity: 'accord', owner: 'slug', key: ['slug'] },
  charts: { entity: 'chart', owner: 'slug', key: ['slug'] },
  chart_entries: { entity: 'chart', owner: 'chart_slug', key: ['snapshot_date', 'rank'] },
  // Reviews have no key: two identical reviews are two rows, compared as a multiset.
  reviews: { entity: 'fragrance', owner: 'fragrance_id', key: null },
  similar_fragrances: { entity: 'fragrance', owner: 'fragrance_id', key: ['similar_id'] },
  wearing_stats: { entity: 'fragrance', owner: 'fragrance_id', key: ['fragrance_id'] },
  wearing_moods: { entity: 'fragrance', owner: 'fragrance_id', key: ['label'] },
  wearing_occasions: { entity: 'fragrance', owner: 'fragrance_id', key: ['label'] },
};

export const CHANGE_TABLES = Object.keys(TABLES);

export interface TableChanges {
  added: number;
  changed: number;
  removed: number;
}

export interface RunChanges {
  tables: Record<string, TableChanges>;
  /** Items with at least one row added, changed or removed, per entity. */
  items: Record<string, number>;
}

const BASELINE = 'run_baseline';
const q = (c: string) => `"${c.replaceAll('"', '""')}"`;

/** One SELECT of (t, o, k, h) over every table: owner hash, key hash within it, row digest. */
async function rowsSql(wh: Pick<WarehouseHandle, 'query'>): Promise<string> {
  const cols = await wh.query<{ t: string; c: string }>(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
     WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`,
  );
  return CHANGE_TABLES.map((t) => {
    const spec = TABLES[t]!;
    const all = cols.filter((r) => r.t === t && !isLineageColumn(r.c)).map((r) => q(r.c));
    const row = `hash(${all.join(', ')})`;
    const key = spec.key ? `hash(${spec.key.map(q).join(', ')})` : row;
    // Keys are compared within one owner (a few hundred rows at most): 32 bits are plenty.
    return `SELECT '${t}' AS t, hash(${q(spec.owner)}) AS o, (${key} % 4294967296)::UINTEGER AS k,
      (${row} % 4294967296)::UINTEGER AS h FROM ${q(t)}`;
  }).join('\nUNION ALL ');
}

/** The tables as this run found them (replaces any earlier baseline on this connection). */
export async function takeBaseline(wh: Pick<WarehouseHandle, 'query'>): Promise<void> {
  await wh.query(`CREATE OR REPLACE TEMP TABLE ${BASELINE} AS ${await rowsSql(wh)}`);
}

/** The tables now against the baseline; null when this connection took none. Drops it. */
export async function runChanges(wh: Pick<WarehouseHandle, 'query'>): Promise<RunChanges | null> {
  const [has] = await wh.query<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = '${BASELINE}' AND temporary`,
  );
  if (!has || Number(has.n) === 0) return null;
  const diff = await wh.query<{ t: string; o: bigint; added: number; changed: number; removed: number }>(
    `WITH b AS (SELECT t, o, k, count(*) AS n, sum(h) AS hs FROM ${BASELINE} GROUP BY ALL),
     c AS (SELECT t, o, k, count(*) AS n, sum(h) AS hs FROM (${await rowsSql(wh)}) GROUP BY ALL),
     d AS (
       SELECT coalesce(c.t, b.t) AS t, coalesce(c.o, b.o) AS o,
         CASE WHEN b.k IS NULL THEN c.n WHEN c.k IS NULL THEN 0 ELSE greatest(c.n - b.n, 0) END AS added,
         CASE WHEN b.k IS NOT NULL AND c.k IS NOT NULL AND b.n = c.n AND b.hs <> c.hs THEN c.n ELSE 0 END AS changed,
         CASE WHEN c.k IS NULL THEN b.n WHEN b.k IS NULL THEN 0 ELSE greatest(b.n - c.n, 0) END AS removed
       FROM c FULL OUTER JOIN b ON c.t = b.t AND c.o = b.o AND c.k = b.k
     )
     SELECT t, o, sum(added)::INTEGER AS added, sum(changed)::INTEGER AS changed, sum(removed)::INTEGER AS removed
     FROM d WHERE added + changed + removed > 0 GROUP BY ALL`,
  );
  await wh.query(`DROP TABLE IF EXISTS ${BASELINE}`);
  const tables: Record<string, TableChanges> = Object.fromEntries(
    CHANGE_TABLES.map((t) => [t, { added: 0, changed: 0, removed: 0 }]),
  );
  const owners = new Map<string, Set<bigint>>();
  for (const r of diff) {
    const row = tables[r.t]!;
    row.added += Number(r.added);
    row.changed += Number(r.changed);
    row.removed += Number(r.removed);
    const entity = TABLES[r.t]!.entity;
    if (!owners.has(entity)) owners.set(entity, new Set());
    owners.get(entity)!.add(BigInt(r.o));
  }
  const items = Object.fromEntries([...owners].map(([e, set]) => [e, set.size]));
  return { tables, items };
}
