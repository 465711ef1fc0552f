/**
 * What one run did to the contract tables: rows added, changed and removed per table, and the
 * items (fragrances, brands, ...) any of those rows belong to. The loader's own counts say how
 * many rows a batch wrote, but a list is replaced as a whole and a profile is rewritten even
 * when nothing in it moved, so "written" is not "changed". Instead the run takes a baseline as
 * it opens (per row: its owner, its key and a digest of its contract columns, in a temp table
 * of the writer's connection) and compares the tables with it when it ends.
 *
 * Cost, measured on a 5,000-fragrance warehouse (565k rows; 2 shared cores): the baseline
 * 0.35 s and 14 MB (~25 bytes a row, so ~190 MB at 120k fragrances while a run lasts), the
 * comparison 1.3 s single-threaded. From an empty warehouse (a first sync, bench:scale) the
 * baseline is empty and the comparison only counts: 0.3 s, no join, nothing grouped by owner.
 * The ledger (api_calls, sync_runs) only grows and is left out: the summary counts its calls.
 * A temp table dies with its connection: across a release of the file (a quota pause, an idle
 * writer) the baseline is kept in a file beside the warehouse, and read back only when the
 * summary compares (baseline-file.ts, which calls these on the writer's connection).
 */
import type { Db } from './db.ts';
import { isLineageColumn } from './contract.ts';

type Conn = Pick<Db, 'all'>;

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

export const BASELINE = 'run_baseline';
const CHANGED = 'run_changed_owners';
const q = (c: string) => `"${c.replaceAll('"', '""')}"`;
const u32 = (expr: string) => `(${expr} % 4294967296)::UINTEGER`;
/** Table index → entity, as an SQL VALUES list to join on. */
const ENTITY_OF = `(VALUES ${CHANGE_TABLES.map((t, i) => `(${i}::UTINYINT, '${TABLES[t]!.entity}')`).join(', ')}) AS te(t, entity)`;

/**
 * One SELECT of (t, o, k, h) over every table: the table's index, its owner's hash, the row's
 * key hash and its digest. 32-bit hashes keep the baseline at ~31 bytes a row: a key is only
 * compared within its table and owner (a few hundred rows at most), and two owners of 120k
 * sharing a hash would merge two items in the count, not hide a row.
 */
async function rowsSql(db: Conn): Promise<string> {
  const cols = await db.all<{ t: string; c: string }>(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
     WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`,
  );
  return CHANGE_TABLES.map((t, i) => {
    const spec = TABLES[t]!;
    const all = cols.filter((r) => r.t === t && !isLineageColumn(r.c)).map((r) => q(r.c));
    const row = `hash(${all.join(', ')})`;
    const key = spec.key ? `hash(${spec.key.map(q).join(', ')})` : row;
    return `SELECT ${i}::UTINYINT AS t, ${u32(`hash(${q(spec.owner)})`)} AS o, ${u32(key)} AS k, ${u32(row)} AS h FROM ${q(t)}`;
  }).join('\nUNION ALL ');
}

/** The tables as this run found them (replaces any earlier baseline on this connection). */
export async function takeBaseline(db: Conn): Promise<void> {
  await db.all(`CREATE OR REPLACE TEMP TABLE ${BASELINE} AS ${await rowsSql(db)}`);
}

/** Per (table, owner) with any row added, changed or removed: the counts, in a temp table. */
function changedOwnersSql(current: string): string {
  return `CREATE OR REPLACE TEMP TABLE ${CHANGED} AS
    WITH b AS (SELECT t, o, k, count(*) AS n, sum(h) AS hs FROM ${BASELINE} GROUP BY ALL),
    c AS (SELECT t, o, k, count(*) AS n, sum(h) AS hs FROM (${current}) GROUP BY ALL),
    d AS (
      SELECT coalesce(c.t, b.t) AS t, coalesce(c.o, b.o) AS o,
        CASE WHEN b.k IS NULL THEN c.n WHEN c.k IS NULL THEN 0 ELSE greatest(c.n - b.n, 0) END AS added,
        CASE WHEN b.k IS NOT NULL AND c.k IS NOT NULL AND b.n = c.n AND b.hs <> c.hs THEN c.n ELSE 0 END AS changed,
        CASE WHEN c.k IS NULL THEN b.n WHEN b.k IS NULL THEN 0 ELSE greatest(b.n - c.n, 0) END AS removed
      FROM c FULL OUTER JOIN b ON c.t = b.t AND c.o = b.o AND c.k = b.k
    )
    SELECT t, o, sum(added) AS added, sum(changed) AS changed, sum(removed) AS removed
    FROM d WHERE added + changed + removed > 0 GROUP BY ALL`;
}

/** The tables now against the baseline, on the connection that holds it (baseline-file.ts). Drops it. */
export async function runChanges(db: Conn): Promise<RunChanges> {
  const [base] = await db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${BASELINE}`);
  // From an empty warehouse every row is new: counts per table and distinct owners per
  // entity, in one statement over the owners alone (no row digests), no join, and nothing
  // grouped by table and owner (at 120k fragrances that was a hash table of about a million
  // groups at the end of the run, the peak of its RSS).
  const empty = Number(base?.n ?? 0) === 0;
  const counts = empty ? await newRowCounts(db) : await changedCounts(db);
  const perTable = counts.filter((r) => r.t !== null);
  const perEntity = counts.filter((r) => r.entity !== null);
  await db.all(`DROP TABLE IF EXISTS ${BASELINE}`);
  await db.all(`DROP TABLE IF EXISTS ${CHANGED}`);
  const tables: Record<string, TableChanges> = Object.fromEntries(
    CHANGE_TABLES.map((t) => [t, { added: 0, changed: 0, removed: 0 }]),
  );
  for (const r of perTable) {
    tables[CHANGE_TABLES[Number(r.t)]!] = {
      added: Number(r.added),
      changed: Number(r.changed ?? 0),
      removed: Number(r.removed ?? 0),
    };
  }
  const items = Object.fromEntries(perEntity.map((r) => [r.entity, Number(r.added)]));
  return { tables, items };
}

/** Per table (t) its rows added, changed, removed; per entity its items with any (in `added`). */
type Counts = {
  t: number | null;
  entity: string | null;
  added: number;
  changed?: number;
  removed?: number;
}[];

/** Every row is new: rows per table, and distinct owners per entity (a hash of the owner key). */
function newRowCounts(db: Conn): Promise<Counts> {
  const owners = CHANGE_TABLES.map(
    (t, i) => `SELECT ${i}::UTINYINT AS t, ${u32(`hash(${q(TABLES[t]!.owner)})`)} AS o FROM ${q(t)}`,
  ).join('\nUNION ALL ');
  return db.all(
    `WITH x AS (${owners})
     SELECT t, NULL AS entity, count(*)::BIGINT AS added FROM x GROUP BY t
     UNION ALL
     SELECT NULL, te.entity, count(DISTINCT x.o)::BIGINT FROM x JOIN ${ENTITY_OF} ON te.t = x.t GROUP BY 2`,
  );
}

/** Rows added, changed and removed against the baseline, per table and per entity's items. */
async function changedCounts(db: Conn): Promise<Counts> {
  await db.all(changedOwnersSql(await rowsSql(db)));
  return db.all(
    `SELECT t, NULL AS entity, sum(added)::BIGINT AS added, sum(changed)::BIGINT AS changed,
            sum(removed)::BIGINT AS removed
     FROM ${CHANGED} GROUP BY t
     UNION ALL
     SELECT NULL, te.entity, count(DISTINCT x.o)::BIGINT, NULL, NULL
     FROM ${CHANGED} x JOIN ${ENTITY_OF} ON te.t = x.t GROUP BY 2`,
  );
}
