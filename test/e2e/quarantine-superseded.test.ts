import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOfRun } from '../../src/cli/exit-codes.ts';
import { readWarehouseFigures } from '../../src/dashboard/warehouse-figures.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync } from '../helpers/cli.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * A record refused twice with different payloads (the next day's nightly asks its profile
 * again; its score drifted, still the wrong type) is one record in quarantine, not two: the
 * older row is superseded (`superseded_at`, closed but not released: the record is still not
 * stored), the newer one stands for it. `fragsync quarantine` lists one pending row, the
 * dashboard counts 1, `--all` shows the older row superseded. Before, both rows stayed
 * pending and every count said 2 for one record.
 */
const dir = fileTempDir('fragsync-superseded-');

describe.each([inProcess, bullmq])('a record quarantined again with another payload, $name', (driver) => {
  const name = driver === bullmq ? 'bullmq' : 'memory';

  it('supersedes its older row: one pending row, counted once', async () => {
    const sim = await startSimulator({
      fragrances: 15,
      invalidRecord: 'wrong-type',
      // Every score moves on the new day: the broken record's next answer differs from its first.
      changeModel: { scoreDriftRate: 1, removalRate: 0 },
      variant: { edgeValues: true, idStyle: 'opaque', listOrder: 'shuffled', errorBody: 'text' },
    });
    const db = join(dir.path, `${name}.duckdb`);
    try {
      const full = await driver.sync(sim, db);
      expect(full.status).toBe('completed_with_quarantine');
      sim.advanceDay();
      const nightly = await driver.sync(sim, db);
      expect(nightly.mode).toBe('incremental');
      expect(nightly.status).toBe('completed_with_quarantine');
      expect(exitCodeOfRun(nightly)).toBe(EXIT.quarantined);
      expect(nightly.quarantined.map((q) => q.count)).toEqual([1]);
      const broken = sim.invalidRecord()!.id;

      const rows = await queryWarehouse<{ released: boolean; superseded: boolean; latest: boolean }>(
        db,
        `SELECT released_at IS NOT NULL AS released, superseded_at IS NOT NULL AS superseded,
           run_id = ? AS latest
         FROM quarantine WHERE key = ? ORDER BY "at"`,
        [nightly.runId, broken],
      );
      expect(rows).toEqual([
        { released: false, superseded: true, latest: false },
        { released: false, superseded: false, latest: true },
      ]);
      // Its profile was never stored: the row the list made has no year.
      expect(await queryWarehouse(db, 'SELECT year FROM fragrances WHERE id = ?', [broken])).toEqual([
        { year: null },
      ]);

      const list = await fragsync(['quarantine', '--db', db, '--format', 'csv']);
      expect(list.code, list.stderr).toBe(0);
      const pending = list.stdout.trimEnd().split('\r\n').slice(1);
      expect(pending).toHaveLength(1);
      expect(pending[0]).toContain(nightly.runId);
      const all = await fragsync(['quarantine', '--db', db, '--all', '--format', 'json']);
      const closed = (
        JSON.parse(all.stdout) as { key: string; run_id: string; superseded_utc: string | null }[]
      )
        .filter((r) => r.key === broken)
        .map((r) => [r.run_id === nightly.runId, r.superseded_utc !== null]);
      expect(closed.sort()).toEqual([
        [false, true],
        [true, false],
      ]);

      const wh = await Warehouse.open(db, { readOnly: true });
      try {
        expect((await readWarehouseFigures(wh, new Date(), db)).quarantine.total).toBe(1);
      } finally {
        await wh.close();
      }
    } finally {
      await sim.close();
    }
  }, 120_000);
});
