import { Warehouse } from '../../src/warehouse/warehouse.ts';

/**
 * Puts a quarantine row on fragrance `key`'s profile as recent as its last fetch, as if that
 * answer had been refused: a nightly asks it again, and stores it if the service now sends it
 * valid (fixed upstream).
 */
export async function quarantineAsRefused(db: string, key: string): Promise<void> {
  const wh = await Warehouse.open(db);
  try {
    await wh.query(
      `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
       SELECT (SELECT max(run_id) FROM sync_runs), fetched_profile, '/v1/fragrances/{id}', key,
         'refused by a test', '{}'::JSON, 'response'
       FROM sync_items WHERE entity = 'fragrance' AND key = ?`,
      [key],
    );
  } finally {
    await wh.close();
  }
}
