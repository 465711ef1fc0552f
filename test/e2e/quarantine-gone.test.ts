import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOfRun } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * A quarantined record discontinued upstream while its cycle is split over runs: the capped
 * first run quarantines a profile; the day after, the record is gone (its list, and 404s of
 * details other than its profile, say so), and the nightly no longer asks a removed item. Its
 * row is closed as found gone (released, as a profile asked again and answered 404 is) before
 * the run that completes the cycle counts what is open: that run is 'completed', exit 0, and
 * its summary says the row closed as gone upstream, not stored. Before, it ended exit 8 and
 * the row stayed pending for good.
 */
const dir = fileTempDir('fragsync-quarantine-gone-');

describe.each([inProcess, bullmq])('a quarantined record gone upstream mid-cycle, $name', (driver) => {
  const name = driver === bullmq ? 'bullmq' : 'memory';

  it('is closed as gone, and the completing run is completed, exit 0', async () => {
    const sim = await startSimulator({
      fragrances: 100,
      seed: 3,
      invalidRecord: 'wrong-type',
      changeModel: { removalRate: 0.95 },
    });
    const db = join(dir.path, `${name}.duckdb`);
    try {
      const capped = await driver.sync(sim, db, { 'max-cents': '200' });
      expect(capped.status).toBe('budget_exhausted');
      expect(capped.quarantined.map((q) => q.count)).toEqual([1]);
      sim.advanceDay({ days: 1 });
      const runs = [await driver.sync(sim, db), await driver.sync(sim, db)];
      expect(runs.map((r) => [r.status, exitCodeOfRun(r)])).toEqual([
        ['completed', EXIT.ok],
        ['completed', EXIT.ok],
      ]);
      expect(runs.map((r) => [r.gone, r.released])).toEqual([
        [1, 0],
        [0, 0],
      ]);
      const text = formatSummary(runs[0]!);
      expect(text).toMatch(/^quarantined by earlier runs: 1 closed: gone upstream /m);
      expect(text).not.toMatch(/stored by this one/);
      expect(
        await queryWarehouse(
          db,
          `SELECT released_at IS NOT NULL AS released, superseded_at IS NOT NULL AS superseded FROM quarantine`,
        ),
      ).toEqual([{ released: true, superseded: false }]);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
