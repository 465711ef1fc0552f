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
 * A record still in quarantine is still missing from the mirror: the nightly after the sync
 * that quarantined it asks for it again (one call), even on the same service day when its
 * dataset is not due, and says what it found. Before, that nightly exited 0 and said nothing.
 */
const KEY = { FRAGSYNC_API_KEY: 'sim-key' };
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
let db: string;
beforeAll(async () => {
  dir = await tempDir('fragsync-quarantine-nightly-');
  sim = await startSimulator({ fragrances: 15, invalidRecord: 'wrong-type' });
  db = join(dir.path, 'w.duckdb');
});
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

async function read<T>(sql: string): Promise<T[]> {
  const wh = await Warehouse.open(db, { readOnly: true });
  try {
    return await wh.query<T>(sql);
  } finally {
    await wh.close();
  }
}

describe('the nightly after a sync that quarantined a record', () => {
  it('asks for the record again; still invalid: the summary says so and the exit code is 8', async () => {
    const full = await fragsync(['sync', '--base-url', sim.url, '--db', db], KEY);
    expect(full.code, full.stderr).toBe(EXIT.quarantined);

    const nightly = await fragsync(['sync', '--base-url', sim.url, '--db', db], KEY);
    expect(nightly.code, nightly.stderr).toBe(EXIT.quarantined);
    expect(nightly.stdout).toMatch(/^run \S+: ended, 1 record quarantined \(not stored\) in /m);
    expect(nightly.stdout).toMatch(/^nightly run \(mode incremental\): /m);
    // Same service day: no profile is due by age, so the one call is the retry.
    const calls = await read<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM api_calls
       WHERE endpoint = '/v1/fragrances/{id}' AND run_id = (SELECT max(run_id) FROM sync_runs)`,
    );
    expect(calls).toEqual([{ n: 1 }]);
    const open = await read<{ key: string; latest: boolean }>(
      `SELECT key, run_id = (SELECT max(run_id) FROM sync_runs) AS latest FROM quarantine WHERE released_at IS NULL`,
    );
    expect(open).toEqual([{ key: sim.invalidRecord()!.id, latest: true }]);
    // Both runs exited 8, and `fragsync runs` still says so of the first, whose open row
    // the nightly took over (it said 0 when it counted the rows by run).
    const runs = await fragsync(['runs', '--db', db, '--format', 'json'], KEY);
    expect(JSON.parse(runs.stdout).map((r: { exit_code: number }) => r.exit_code)).toEqual([
      EXIT.quarantined,
      EXIT.quarantined,
    ]);
  });

  it('fragsync status shows the latest run quarantined the record, as its exit code 8 says', async () => {
    const [latest] = await read<{ run_id: string; records: number }>(
      `SELECT r.run_id, k.records FROM sync_runs r JOIN sync_run_quarantined k USING (run_id)
       ORDER BY r.started_at DESC LIMIT 1`,
    );
    expect(latest!.records).toBe(1);
    const status = await fragsync(['status', '--db', db]);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    expect(status.stdout).toMatch(
      new RegExp(
        `^latest run\\s+${latest!.run_id} completed_with_quarantine: \\d+ calls, \\d+ cents, quarantined 1$`,
        'm',
      ),
    );
    // --json says the same, with the exit code `fragsync runs` gives the run.
    const json = JSON.parse((await fragsync(['status', '--db', db, '--json'])).stdout);
    const runs = JSON.parse((await fragsync(['runs', '--db', db, '--format', 'json'])).stdout);
    expect(json.latestRun).toMatchObject({
      runId: latest!.run_id,
      mode: 'nightly',
      quarantinedRecords: 1,
      exitCode: EXIT.quarantined,
    });
    expect(runs[0]).toMatchObject({ run_id: latest!.run_id, exit_code: json.latestRun.exitCode });
  });

  it('fragsync plan counts the retry among what the next nightly owes', async () => {
    const plan = await fragsync(['plan', '--base-url', sim.url, '--db', db], KEY);
    expect(plan.code, plan.stderr).toBe(EXIT.ok);
    // Labelled, in the text and in JSON: the one record still in quarantine, on its
    // endpoint's line (the others' lines carry no label) and in the totals.
    expect(plan.stdout).toMatch(
      /^\s+GET\s+\/v1\/fragrances\/\{id\}\s+1\s+1 {2}\(1 of them: quarantined record asked again\)$/m,
    );
    expect(plan.stdout.match(/asked again\)$/gm)).toHaveLength(1);
    expect(plan.stdout).toMatch(/^includes 1 record in quarantine asked again /m);
    const json = await fragsync(['plan', '--base-url', sim.url, '--db', db, '--json'], KEY);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const j = JSON.parse(json.stdout);
    const open = await read<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM quarantine WHERE released_at IS NULL',
    );
    expect(j).toMatchObject({ kind: 'nightly', quarantinedRecordsAskedAgain: open[0]!.n });
    expect(j.quarantinedRecordsAskedAgain).toBe(1);
    expect(j.byEndpoint.getFragrance).toMatchObject({ calls: 1, cents: 1, quarantinedAskedAgain: 1 });
    for (const [name, line] of Object.entries(
      j.byEndpoint as Record<string, { quarantinedAskedAgain: number }>,
    ))
      if (name !== 'getFragrance') expect(line.quarantinedAskedAgain, name).toBe(0);
  });

  it('a record the service now sends valid is stored and released from quarantine, and the summary says so', async () => {
    // Another profile, as if its answer had been refused at its last fetch (a row as recent
    // as the fetch): the service sends it valid, so the nightly stores it.
    const other = sim.groundTruth().fragrances.find((f) => f.id !== sim.invalidRecord()!.id)!.id;
    await quarantineAsRefused(db, other);
    const nightly = await fragsync(['sync', '--base-url', sim.url, '--db', db], KEY);
    // The broken record is still refused: 8 all the same.
    expect(nightly.code, nightly.stderr).toBe(EXIT.quarantined);
    expect(nightly.stdout).toMatch(
      /^released from quarantine: 1 \(quarantined by an earlier run, stored by this one\)$/m,
    );
    const open = await read<{ key: string }>('SELECT key FROM quarantine WHERE released_at IS NULL');
    expect(open).toEqual([{ key: sim.invalidRecord()!.id }]);
    const released = await read<{ key: string }>('SELECT key FROM quarantine WHERE released_at IS NOT NULL');
    expect(released).toEqual([{ key: other }]);
  });
});
