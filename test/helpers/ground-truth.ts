import type { GroundTruth, Ledger } from '../../src/simulator/types.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { truthRows } from '../../src/simulator/truth-rows.ts';
import { RowDigest, type TableDigest } from '../../src/util/row-digest.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';

/**
 * Every contract table, as rows, from the simulator's ground truth and from a warehouse,
 * in one canonical form (sorted JSON lines), so a test can say exactly which rows differ.
 * Reviews are compared as multisets per fragrance (sorted, duplicates kept). A list whose
 * key repeats (an id twice in a similar list, a label twice in a mood list, a tied chart
 * rank) is split by the warehouse's collision rule (docs/data-dictionary.md): the first
 * entry of a key in API order is the contract row, every later one an overflow row, so
 * "exact" covers every entry the service sent.
 */
export type Tables = Record<string, string[]>;

const canon = (rows: unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

export function truthTables(t: GroundTruth): Tables {
  return Object.fromEntries(Object.entries(truthRows(t)).map(([table, rows]) => [table, canon(rows)]));
}

/** The contract tables as the warehouse holds them, in truthRows' column order. */
export const QUERIES: Record<string, string> = {
  fragrances: 'SELECT id, name, brand, brand_slug, perfumer, perfumer_slug, year, score FROM fragrances',
  fragrance_notes: 'SELECT fragrance_id, layer, position, note FROM fragrance_notes',
  fragrance_accords: 'SELECT fragrance_id, position, accord, strength FROM fragrance_accords',
  brands: 'SELECT slug, name, country, description FROM brands',
  brand_fragrances: 'SELECT brand_slug, fragrance_id FROM brand_fragrances',
  perfumers: 'SELECT slug, name, nationality, bio FROM perfumers',
  notes: 'SELECT slug, name, family, description FROM notes',
  accords: 'SELECT slug, name FROM accords',
  charts: 'SELECT slug, title FROM charts',
  chart_entries:
    'SELECT chart_slug, CAST(snapshot_date AS VARCHAR), rank, fragrance_id, name, brand, score FROM chart_entries WHERE snapshot_date = ?',
  reviews: 'SELECT fragrance_id, CAST(date AS VARCHAR), rating, text FROM reviews',
  similar_fragrances: 'SELECT fragrance_id, similar_id, rank, similarity_score FROM similar_fragrances',
  wearing_stats: 'SELECT fragrance_id, spring, summer, fall, winter FROM wearing_stats',
  wearing_moods: 'SELECT fragrance_id, label, rank, score FROM wearing_moods',
  wearing_occasions: 'SELECT fragrance_id, label, rank, score FROM wearing_occasions',
  similar_fragrances_overflow:
    'SELECT fragrance_id, similar_id, rank, similarity_score FROM similar_fragrances_overflow',
  wearing_labels_overflow: 'SELECT fragrance_id, list, label, rank, score FROM wearing_labels_overflow',
  chart_entries_overflow:
    'SELECT chart_slug, CAST(snapshot_date AS VARCHAR), position, rank, fragrance_id, name, brand, score FROM chart_entries_overflow WHERE snapshot_date = ?',
};

export async function warehouseTables(dbPath: string, serviceDate: string): Promise<Tables> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const out: Tables = {};
    for (const [table, sql] of Object.entries(QUERIES)) {
      const rows = await wh.query<Record<string, unknown>>(
        sql,
        table.startsWith('chart_entries') ? [serviceDate] : [],
      );
      out[table] = canon(
        rows.map((r) => Object.values(r).map((v) => (typeof v === 'bigint' ? Number(v) : v))),
      );
    }
    return out;
  } finally {
    await wh.close();
  }
}

/**
 * Each contract table's row count and order-independent digest (RowDigest), streamed from the
 * warehouse a chunk at a time: comparable with the simulator's truthDigest at any size.
 */
export async function warehouseDigest(
  dbPath: string,
  serviceDate: string,
): Promise<Record<string, TableDigest>> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, TableDigest> = {};
    for (const [table, sql] of Object.entries(QUERIES)) {
      const d = new RowDigest();
      const result = await conn.stream(sql, table.startsWith('chart_entries') ? [serviceDate] : []);
      for await (const rows of result.yieldRowsJs())
        for (const row of rows) d.add(row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
      out[table] = { rows: d.rows, digest: d.digest };
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Per table: rows missing from the warehouse and rows it has that upstream does not (first few). */
export function diffTables(
  expected: Tables,
  actual: Tables,
): Record<string, { missing: string[]; extra: string[] }> {
  const out: Record<string, { missing: string[]; extra: string[] }> = {};
  for (const table of Object.keys(expected)) {
    const e = multiset(expected[table] ?? []);
    const a = multiset(actual[table] ?? []);
    const missing: string[] = [];
    const extra: string[] = [];
    for (const [row, n] of e) for (let i = 0; i < n - (a.get(row) ?? 0); i++) missing.push(row);
    for (const [row, n] of a) for (let i = 0; i < n - (e.get(row) ?? 0); i++) extra.push(row);
    if (missing.length + extra.length > 0)
      out[table] = { missing: missing.slice(0, 5), extra: extra.slice(0, 5) };
  }
  return out;
}

function multiset(rows: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

/** The ledger the warehouse keeps of the calls it sent: count and cents, per endpoint template. */
export async function warehouseLedger(
  dbPath: string,
): Promise<{ calls: number; cents: number; billable: number }> {
  const wh = await Warehouse.open(dbPath, { readOnly: true });
  try {
    const [r] = await wh.query<{ calls: number; cents: number; billable: number }>(
      `SELECT count(*)::INTEGER AS calls, coalesce(sum(cost_cents),0)::INTEGER AS cents,
              coalesce(sum(cost_cents) FILTER (WHERE status NOT IN (401, 402, 429)),0)::INTEGER AS billable
       FROM api_calls`,
    );
    return { calls: Number(r?.calls ?? 0), cents: Number(r?.cents ?? 0), billable: Number(r?.billable ?? 0) };
  } finally {
    await wh.close();
  }
}

export type { Ledger };
