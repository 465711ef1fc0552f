import type { Warehouse } from './warehouse.ts';

export interface TableInfo {
  kind: 'table' | 'view';
  columns: { name: string; type: string }[];
  primaryKey: string[];
}

/** The user-visible schema (main, no temp objects): tables and views with columns and keys. */
export async function describeSchema(wh: Warehouse): Promise<Record<string, TableInfo>> {
  const cols = await wh.query<{ t: string; c: string; type: string; view: boolean }>(
    `SELECT c.table_name AS t, c.column_name AS c, c.data_type AS type,
       c.table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main') AS view
     FROM duckdb_columns() c
     WHERE c.schema_name = 'main' AND c.database_name = current_database() AND NOT c.internal
     ORDER BY c.table_name, c.column_index`,
  );
  const pks = await wh.query<{ t: string; cols: string[] }>(
    `SELECT table_name AS t, constraint_column_names AS cols FROM duckdb_constraints()
     WHERE schema_name = 'main' AND database_name = current_database() AND constraint_type = 'PRIMARY KEY'`,
  );
  const out: Record<string, TableInfo> = {};
  for (const r of cols) {
    const info = (out[r.t] ??= { kind: r.view ? 'view' : 'table', columns: [], primaryKey: [] });
    info.columns.push({ name: r.c, type: r.type });
  }
  for (const p of pks) if (out[p.t]) out[p.t]!.primaryKey = p.cols;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
