import { Warehouse } from '../../src/warehouse/warehouse.ts';

/**
 * Moves every time a warehouse holds `hours` into the past, as if its syncs had run that long
 * ago: fetch times, walk marks, runs, the ledger. The nightly judges ages against the wall
 * clock, and a test cannot wait a day between two syncs. Service data (review dates, chart
 * snapshot days) is left alone: the simulator's own clock moves that (advanceDay).
 */
export async function ageWarehouse(dbPath: string, hours: number): Promise<void> {
  const wh = await Warehouse.open(dbPath);
  try {
    const cols = await wh.query<{ t: string; c: string }>(
      `SELECT c.table_name AS t, c.column_name AS c FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
       WHERE t.table_type = 'BASE TABLE' AND c.table_schema = 'main' AND c.data_type LIKE 'TIMESTAMP%'`,
    );
    for (const { t, c } of cols)
      await wh.query(`UPDATE "${t}" SET "${c}" = "${c}" - INTERVAL ${Math.round(hours * 60)} MINUTE`);
  } finally {
    await wh.close();
  }
}
