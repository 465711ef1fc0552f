import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { quarantineAsRefused } from '../helpers/quarantine.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Released from quarantine means stored. A record the next day's nightly fetches again and
 * refuses again, with another payload (its score drifted), is still missing from the mirror:
 * its earlier row is not released (it is superseded by the newer one, which stays open), and
 * the summary does not count it released. Before, that
 * nightly said 'released from quarantine: 1' of the record it had just quarantined again.
 * A record the service sends valid after all (fixed upstream) is still released.
 */
const KEY = { FRAGSYNC_API_KEY: 'sim-key' };
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
let db: string;
beforeAll(async () => {
  dir = await tempDir('fragsync-requarantined-');
  sim = await startSimulator({
    fragrances: 15,
    invalidRecord: 'wrong-type',
    // Every score moves on the new day: the broken record's next answer differs from its first.
    changeModel: { scoreDriftRate: 1, removalRate: 0 },
    variant: { edgeValues: true, idStyle: 'opaque', listOrder: 'shuffled', errorBody: 'text' },
  });
  db = join(dir.path, 'w.duckdb');
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

async function read<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const wh = await Warehouse.open(db, { readOnly: true });
  try {
    return await wh.query<T>(sql, params as never);
  } finally {
    await wh.close();
  }
}

describe('a record quarantined again the next day', () => {
  it('is not released; a record fixed upstream is', async () => {
    const full = await fragsync(['sync', '--base-url', sim.url, '--db', db], KEY);
    expect(full.code, full.stderr).toBe(EXIT.quarantined);
    const broken = sim.invalidRecord()!.id;
    // Another profile, as if its answer had been refused at its last fetch: the service
    // sends it valid, so the nightly stores it (fixed upstream).
    const fixed = sim.groundTruth().fragrances.find((f) => f.id !== broken)!.id;
    await quarantineAsRefused(db, fixed);
    sim.advanceDay();

    const nightly = await fragsync(['sync', '--base-url', sim.url, '--db', db, '--json'], KEY);
    expect(nightly.code, nightly.stderr).toBe(EXIT.quarantined);
    const summary = JSON.parse(nightly.stdout);
    expect(summary.released).toBe(1);
    // The broken record was answered again, with another payload: a second row, which
    // supersedes the first (closed, not released: the record is still not stored).
    const rows = await read<{ released: boolean; superseded: boolean; latest: boolean }>(
      `SELECT released_at IS NOT NULL AS released, superseded_at IS NOT NULL AS superseded,
         run_id = (SELECT max(run_id) FROM sync_runs) AS latest
       FROM quarantine WHERE key = ? ORDER BY "at"`,
      [broken],
    );
    expect(rows).toEqual([
      { released: false, superseded: true, latest: false },
      { released: false, superseded: false, latest: true },
    ]);
    // Its profile was never stored: the row the list made has no year.
    const stored = await read<{ year: number | null }>('SELECT year FROM fragrances WHERE id = ?', [broken]);
    expect(stored).toEqual([{ year: null }]);
    const released = await read<{ key: string }>('SELECT key FROM quarantine WHERE released_at IS NOT NULL');
    expect(released).toEqual([{ key: fixed }]);
  });
});
