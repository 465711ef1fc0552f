import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOfRun, EXIT } from '../../src/cli/exit-codes.ts';
import { buildPlan } from '../../src/plan/plan.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { testConfig } from '../helpers/sync.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * A sync that read everything it owed but could not store a record the service sent (it is
 * in quarantine) records 'completed_with_quarantine' in sync_runs, not 'completed': an
 * analyst's `WHERE status = 'completed'` finds only runs that left the mirror whole. It exits
 * 8, and counts as a finished read all the same: its cycle is done (cost ratio, Parquet), the
 * next sync is the nightly and the plan says so. A run that stored everything records
 * 'completed'. Before, the quarantining run recorded 'completed'.
 */
const dir = fileTempDir('fragsync-quarantine-status-');

const statuses = (db: string) =>
  queryWarehouse<{ status: string; mode: string }>(
    db,
    `SELECT status, coalesce(m.mode, 'full') AS mode FROM sync_runs LEFT JOIN sync_run_modes m USING (run_id)
     ORDER BY started_at`,
  );

describe.each([inProcess, bullmq])('run status of a sync that quarantined a record, $name', (driver) => {
  const name = driver === bullmq ? 'bullmq' : 'memory';

  it('completed_with_quarantine, exit 8, a finished cycle: the next sync is the nightly', async () => {
    const sim = await startSimulator({ fragrances: 15, invalidRecord: 'wrong-type' });
    const db = join(dir.path, `${name}-quarantine.duckdb`);
    const parquet = join(dir.path, `${name}-parquet`);
    try {
      const full = await driver.sync(sim, db, { parquet });
      expect(full.status).toBe('completed_with_quarantine');
      expect(full.quarantined.map((q) => q.count)).toEqual([1]);
      expect(exitCodeOfRun(full)).toBe(EXIT.quarantined);
      // A finished read of the whole catalogue: its cost ratio, and its Parquet export.
      expect(full.costRatio).not.toBeNull();
      expect(full.owed).toBeNull();
      expect((await readdir(parquet)).filter((f) => f.endsWith('.parquet')).length).toBeGreaterThan(0);
      expect(await statuses(db)).toEqual([{ status: 'completed_with_quarantine', mode: 'full' }]);
      expect(await queryWarehouse(db, "SELECT run_id FROM sync_runs WHERE status = 'completed'")).toEqual([]);

      // The cycle is done: the plan and the next sync agree it is the nightly.
      const wh = await Warehouse.open(db, { readOnly: true });
      try {
        const state = await wh.syncState();
        expect(state).toMatchObject({ lastCompletedRun: full.runId, cycleStart: null });
        expect(buildPlan(state, testConfig({ baseUrl: sim.url, dbPath: db }), null).kind).toBe('nightly');
      } finally {
        await wh.close();
      }
      const nightly = await driver.sync(sim, db);
      expect(nightly.mode).toBe('incremental');
      // It asked for the record again, still invalid: the same status, and 8.
      expect(nightly.status).toBe('completed_with_quarantine');
      expect(exitCodeOfRun(nightly)).toBe(EXIT.quarantined);
      expect(await statuses(db)).toEqual([
        { status: 'completed_with_quarantine', mode: 'full' },
        { status: 'completed_with_quarantine', mode: 'nightly' },
      ]);
    } finally {
      await sim.close();
    }
  });

  it('a sync that stored everything records completed, exit 0', async () => {
    const sim = await startSimulator({ fragrances: 15 });
    const db = join(dir.path, `${name}-whole.duckdb`);
    try {
      const full = await driver.sync(sim, db);
      expect(full.status).toBe('completed');
      expect(full.quarantined).toEqual([]);
      expect(exitCodeOfRun(full)).toBe(EXIT.ok);
      expect(await statuses(db)).toEqual([{ status: 'completed', mode: 'full' }]);
    } finally {
      await sim.close();
    }
  });
});
