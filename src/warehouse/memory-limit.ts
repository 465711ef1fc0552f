/**
 * DuckDB's memory limit as the buffer manager enforces it. `RESET memory_limit` is not
 * enough (DuckDB 1.5.x): `current_setting('memory_limit')` then reads the default (80% of
 * RAM) while the buffer manager keeps the limit set before it, so a statement that needed
 * the default's room still failed with "failed to pin block ... (182.8 MiB/183.1 MiB used)"
 * under the sync's 192MB (sql/session.sql): bench:load's bulk reference in session 8.
 * Setting the value explicitly moves the buffer manager too.
 */

/** Runs one statement and returns its rows (a connection's `rows`, or `Warehouse.query`). */
export type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** The limit the buffer manager enforces now (not the setting's text, see above). */
export async function enforcedMemoryLimit(query: Query): Promise<string> {
  const [row] = await query('SELECT memory_limit AS m FROM pragma_database_size() LIMIT 1');
  return String(row?.m);
}

/**
 * Puts DuckDB's own default limit in force (to within the rounding of its printed value, e.g.
 * '18.8 GiB'); returns the limit now enforced.
 */
export async function useDefaultMemoryLimit(query: Query): Promise<string> {
  await query('RESET memory_limit');
  const [row] = await query("SELECT current_setting('memory_limit') AS m");
  await query(`SET memory_limit = '${String(row?.m).replaceAll("'", "''")}'`);
  return enforcedMemoryLimit(query);
}
