import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOfRun } from '../../src/cli/exit-codes.ts';
import { summaryJson } from '../../src/cli/summary-json.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { fragsync } from '../helpers/cli.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fileTempDir } from '../helpers/tmp.ts';

/**
 * A full cycle split over runs: the first, stopped by --max-cents, quarantined an invalid
 * profile; the next completes the cycle without asking that profile again (the cycle fetched
 * it already). The record is still missing from the mirror, so the completing run is
 * 'completed_with_quarantine', exit 8, and its summary names what the cycle's earlier runs
 * left in quarantine (its own line, and --json's earlierInCycle); `status` and `runs` say the
 * same, `status` with the number (--json's earlierInCycleRecords: before, only its own 0).
 * Its own count (sync_run_quarantined) stays 0: the row is the earlier run's. Before, it
 * recorded 'completed', exit 0, with the record still pending. A cycle with nothing
 * quarantined anywhere still completes 'completed'.
 */
const dir = fileTempDir('fragsync-cycle-quarantine-');

/** Of the 159 cents a full sync of this catalogue costs: the profiles come early (the invalid one among them). */
const CAP = '60';

describe.each([inProcess, bullmq])(
  'a cycle completed with an earlier run’s record in quarantine, $name',
  (driver) => {
    const name = driver === bullmq ? 'bullmq' : 'memory';

    it('the completing run is completed_with_quarantine, exit 8, and says why', async () => {
      const sim = await startSimulator({ fragrances: 15, invalidRecord: 'missing-key' });
      const db = join(dir.path, `${name}-split.duckdb`);
      try {
        const capped = await driver.sync(sim, db, { 'max-cents': CAP });
        expect(capped.status).toBe('budget_exhausted');
        expect(capped.quarantined.map((q) => q.count)).toEqual([1]);

        const done = await driver.sync(sim, db);
        expect(done.status).toBe('completed_with_quarantine');
        expect(exitCodeOfRun(done)).toBe(EXIT.quarantined);
        expect(done.quarantined).toEqual([]);
        expect(done.earlierInCycle).toEqual({ records: 1, failedJobs: 0 });
        expect(JSON.parse(summaryJson(done))).toMatchObject({
          status: 'completed_with_quarantine',
          exitCode: EXIT.quarantined,
          earlierInCycle: { records: 1, failedJobs: 0 },
        });
        const text = formatSummary(done);
        expect(text).toMatch(/^run \S+: ended, 1 left in quarantine by earlier runs of this cycle in /);
        expect(text).toMatch(
          /^earlier runs of this cycle left 1 record in quarantine, not stored \(`fragsync quarantine`\)$/m,
        );
        expect(await queryWarehouse(db, 'SELECT status FROM sync_runs ORDER BY started_at')).toEqual([
          { status: 'budget_exhausted' },
          { status: 'completed_with_quarantine' },
        ]);
        const status = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout).latestRun;
        expect([status.status, status.exitCode, status.quarantinedRecords]).toEqual([
          'completed_with_quarantine',
          EXIT.quarantined,
          0,
        ]);
        // It carries what the cycle left open, as the summary, the dashboard and `quarantine` count it.
        expect([status.earlierInCycleRecords, status.earlierInCycleFailedJobs]).toEqual([1, 0]);
        // Its text says why it is not 'completed' though it quarantined nothing itself, with the number.
        expect((await fragsync(['status', '--db', db])).stdout).toContain(
          ', 1 record earlier runs of its cycle quarantined is still not stored',
        );
        const runs = JSON.parse((await fragsync(['runs', '--db', db, '--json'])).stdout);
        expect(runs.map((r: { cause: string; exit_code: number }) => [r.cause, r.exit_code])).toEqual([
          ['completed_with_quarantine', EXIT.quarantined],
          ['budget_exhausted', EXIT.budgetExhausted],
        ]);
        // The run's own count stays its own: the record is the earlier run's row, still pending.
        expect(await queryWarehouse(db, 'SELECT records FROM sync_run_quarantined ORDER BY run_id')).toEqual([
          { records: 1 },
          { records: 0 },
        ]);
        // What the cycle left open is kept as the run ended with it, as its status was decided:
        // a row closed later (a revalidate, say) does not make the run's figure 0 beside its
        // status (it was read live).
        const wh = await Warehouse.open(db);
        try {
          await wh.query('UPDATE quarantine SET released_at = now()');
        } finally {
          await wh.close();
        }
        const later = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout).latestRun;
        expect([later.status, later.earlierInCycleRecords]).toEqual(['completed_with_quarantine', 1]);
      } finally {
        await sim.close();
      }
    }, 90_000);

    it('a cycle split the same way with nothing quarantined is completed, exit 0', async () => {
      const sim = await startSimulator({ fragrances: 15 });
      const db = join(dir.path, `${name}-whole.duckdb`);
      try {
        expect((await driver.sync(sim, db, { 'max-cents': CAP })).status).toBe('budget_exhausted');
        const done = await driver.sync(sim, db);
        expect(done.status).toBe('completed');
        expect(exitCodeOfRun(done)).toBe(EXIT.ok);
        expect(done.earlierInCycle).toEqual({ records: 0, failedJobs: 0 });
        const status = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout).latestRun;
        expect([status.status, status.earlierInCycleRecords]).toEqual(['completed', 0]);
      } finally {
        await sim.close();
      }
    }, 90_000);
  },
);
