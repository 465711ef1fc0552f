import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, exitCodeOfRun } from '../../src/cli/exit-codes.ts';
import { readWarehouseFigures } from '../../src/dashboard/warehouse-figures.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { closedPort, fragsync } from '../helpers/cli.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A sync against a URL nothing listens on fails (exit 7) and records each job that failed in
 * quarantine (scope 'job': nothing was received, the row names what the run did not get).
 * They are counted as failed jobs, not as records quarantined (nothing was received): by
 * `status`, the dashboard and `quarantine --revalidate`. The next sync that reaches the service
 * fetches what those jobs were to fetch: their rows are released, so nothing stays pending,
 * `fragsync quarantine` lists none, the dashboard counts 0, and that run is 'completed', exit
 * 0. Before, the job rows stayed pending for good (the dashboard counted every failed run's four
 * list jobs as 'records not stored', status said '4 records quarantined').
 */
let dir: { path: string; cleanup(): Promise<void> };
let noRetries: string;
beforeAll(async () => {
  dir = await tempDir('fragsync-failed-jobs-');
  noRetries = join(dir.path, 'no-retries.json');
  await writeFile(noRetries, JSON.stringify({ http: { maxRetries: 0 } }));
});
afterAll(() => dir.cleanup());

const pending = (db: string) =>
  queryWarehouse<{ endpoint: string; scope: string }>(
    db,
    'SELECT endpoint, scope FROM quarantine WHERE released_at IS NULL ORDER BY endpoint',
  );

/** The dashboard's quarantine figures: pending records, and apart pending failed jobs. */
async function dashboard(db: string): Promise<{ total: number; failedJobs: number }> {
  const wh = await Warehouse.open(db, { readOnly: true });
  try {
    const { total, failedJobs } = (await readWarehouseFigures(wh, new Date(), db)).quarantine;
    return { total, failedJobs };
  } finally {
    await wh.close();
  }
}

/** `fragsync status --json`'s latest run: status, exit code, records quarantined, failed jobs. */
async function latestRun(db: string): Promise<unknown[]> {
  const r = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout).latestRun;
  return [r.status, r.exitCode, r.quarantinedRecords, r.failedJobs];
}

describe.each([inProcess, bullmq])('failed jobs released by a later sync, $name', (driver) => {
  const name = driver === bullmq ? 'bullmq' : 'memory';

  it('an unreachable URL, then a good run: no pending rows, quarantine lists none, dashboard 0', async () => {
    const db = join(dir.path, `${name}.duckdb`);
    const nowhere = { url: `http://127.0.0.1:${await closedPort()}` } as Simulator;
    const failed = await driver.sync(nowhere, db, { config: noRetries });
    expect(failed.status).toBe('failed');
    expect(exitCodeOfRun(failed)).toBe(EXIT.apiUnavailable);
    // What the run did not get is recorded: the four list walks it could not read.
    expect((await pending(db)).map((r) => [r.endpoint, r.scope])).toEqual([
      ['accords', 'job'],
      ['charts', 'job'],
      ['fragrancesPage', 'job'],
      ['notesPage', 'job'],
    ]);

    // They are jobs that failed, not records received and refused: status, the dashboard and
    // --revalidate count them apart, by that name.
    expect(await latestRun(db)).toEqual(['failed', EXIT.apiUnavailable, 0, 4]);
    const text = await fragsync(['status', '--db', db]);
    expect(text.stdout).toMatch(/ended failed at \S+, 4 failed jobs \(to fetch again by the next sync\)$/m);
    expect(text.stdout).not.toMatch(/records? quarantined/);
    expect(await dashboard(db)).toEqual({ total: 0, failedJobs: 4 });
    const check = await fragsync(['quarantine', '--db', db, '--revalidate'], { FRAGSYNC_API_KEY: 'sim-key' });
    expect(check.stdout.trim()).toBe(
      'released 0 (now valid, loaded); 4 remain (4 failed jobs: nothing was received, to fetch again by the next sync)',
    );

    const sim = await startSimulator({ fragrances: 15 });
    try {
      const good = await driver.sync(sim, db, { config: noRetries });
      expect(good.status).toBe('completed');
      expect(exitCodeOfRun(good)).toBe(EXIT.ok);
      expect(good.refetched).toBe(4);
    } finally {
      await sim.close();
    }
    expect(await pending(db)).toEqual([]);
    expect(
      await queryWarehouse(db, 'SELECT count(*)::INTEGER AS n FROM quarantine WHERE released_at IS NOT NULL'),
    ).toEqual([{ n: 4 }]);
    expect(await dashboard(db)).toEqual({ total: 0, failedJobs: 0 });
    expect(await latestRun(db)).toEqual(['completed', EXIT.ok, 0, 0]);
    const list = await fragsync(['quarantine', '--db', db, '--format', 'csv']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trimEnd().split('\r\n')).toEqual(['endpoint,key,reason,at_utc,run_id,scope']);
  }, 90_000);
});
