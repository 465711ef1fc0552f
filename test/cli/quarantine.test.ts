import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { InvalidRecordKind, Simulator } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { fragsync, said } from '../helpers/cli.ts';
import { diffTables, truthTables, warehouseTables, type Tables } from '../helpers/ground-truth.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Quarantine is loud: the real binary against the simulator over HTTP, serving one fragrance
 * profile the spec does not allow (SimulatorOptions.invalidRecord).
 */
const KEY = { FRAGSYNC_API_KEY: 'sim-key' };
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-quarantine-');
});
afterAll(() => dir.cleanup());

/** The rows a fragrance's profile answer gives the mirror, and only those. */
const PROFILE_TABLES = ['fragrances', 'fragrance_notes', 'fragrance_accords'];
const withoutProfile = (t: Tables, id: string): Tables =>
  Object.fromEntries(
    Object.entries(t).map(([table, rows]) => [
      table,
      PROFILE_TABLES.includes(table) ? rows.filter((r) => (JSON.parse(r) as unknown[])[0] !== id) : rows,
    ]),
  );

async function withWarehouse<T>(db: string, fn: (wh: Warehouse) => Promise<T>): Promise<T> {
  const wh = await Warehouse.open(db, { readOnly: true });
  try {
    return await fn(wh);
  } finally {
    await wh.close();
  }
}

interface Row {
  endpoint: string;
  key: string;
  reason: string;
  at_utc: string;
  payload?: string;
}
const jsonl = (out: string): Row[] =>
  out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

describe.each<[InvalidRecordKind, RegExp]>([
  ['wrong-type', /year.*(number|integer)/i],
  ['missing-key', /name/],
])('a service that sends one invalid fragrance profile (%s)', (kind, why) => {
  let sim: Simulator;
  let db: string;
  let id: string;
  beforeAll(async () => {
    sim = await startSimulator({ fragrances: 15, invalidRecord: kind });
    db = join(dir.path, `${kind}.duckdb`);
    id = sim.invalidRecord()!.id;
  });
  afterAll(() => sim.close());

  it('sync: the rest is mirrored, the record is in quarantine with its payload, a summary line, exit 8', async () => {
    const r = await fragsync(['sync', '--base-url', sim.url, '--db', db], KEY);
    expect(r.code, r.stderr).toBe(EXIT.quarantined);
    // The first line says it too: "completed" alone would read as everything stored.
    expect(r.stdout).toMatch(/^run \S+: ended, 1 record quarantined \(not stored\) in /m);
    const status = await fragsync(['status', '--db', db], KEY);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    expect(status.stdout).toMatch(
      /^state\s+no run going on; the last run \S+ ended completed_with_quarantine at \S+, 1 record quarantined \(not stored; `fragsync quarantine` lists them\)$/m,
    );
    expect(r.stdout).toMatch(/^quarantined records: 1 \(not stored; `fragsync quarantine` lists them\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^  /v1/fragrances/\\{id\\}\\s+1  e\\.g\\. .*${why.source}`, 'mi'));
    expect(said(r)).toContain(
      'fragsync sync: 1 record quarantined (not stored): `fragsync quarantine` lists them',
    );

    const truth = sim.groundTruth();
    const mirrored = await warehouseTables(db, truth.serviceDate);
    // Everything but the broken profile's own rows is exactly the service's truth...
    expect(diffTables(withoutProfile(truthTables(truth), id), withoutProfile(mirrored, id))).toEqual({});
    // ...and of that profile nothing was stored: its notes and accords are missing.
    expect(mirrored.fragrance_notes!.some((row) => row.startsWith(`[${JSON.stringify(id)},`))).toBe(false);
    expect(truthTables(truth).fragrance_notes!.some((row) => row.startsWith(`[${JSON.stringify(id)},`))).toBe(
      true,
    );
    const rows = await withWarehouse(db, (wh) =>
      wh.query<{ endpoint: string; key: string; reason: string; raw: string }>(
        'SELECT endpoint, key, reason, raw::VARCHAR AS raw FROM quarantine',
      ),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: '/v1/fragrances/{id}', key: id });
    expect(rows[0]!.reason).toMatch(why);
    const raw = JSON.parse(rows[0]!.raw) as Record<string, unknown>;
    const served = truth.fragrances.find((f) => f.id === id)!;
    // The payload as the service sent it: the broken field broken, the rest intact.
    if (kind === 'wrong-type') expect(raw).toEqual({ ...served, year: String(served.year) });
    else expect(raw).toEqual(Object.fromEntries(Object.entries(served).filter(([k]) => k !== 'name')));
  });

  it('fragsync quarantine lists it (endpoint, key, reason, when), --payload adds what was sent', async () => {
    const list = await fragsync(['quarantine', '--db', db, '--json']);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    const [row, ...more] = jsonl(list.stdout);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ endpoint: '/v1/fragrances/{id}', key: id });
    expect(row!.reason).toMatch(why);
    expect(row!.at_utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(row).not.toHaveProperty('payload');
    const withPayload = jsonl((await fragsync(['quarantine', '--db', db, '--json', '--payload'])).stdout);
    expect(JSON.parse(withPayload[0]!.payload!)).toMatchObject({ id });
    const table = await fragsync(['quarantine', '--db', db, '--width', '200']);
    expect(table.stdout).toContain('/v1/fragrances/{id}');
    expect(table.stdout).toContain(id);
  });

  it('fragsync runs shows the exit code the run gave, and its status: not completed', async () => {
    const r = await fragsync(['runs', '--db', db, '--format', 'jsonl']);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      cause: 'completed_with_quarantine',
      exit_code: EXIT.quarantined,
    });
    // An analyst's "last whole mirror" finds no run: the one run did not store everything.
    const whole = await withWarehouse(db, (wh) =>
      wh.query<{ status: string }>("SELECT status FROM sync_runs WHERE status = 'completed'"),
    );
    expect(whole).toEqual([]);
  });

  it("an earlier version's row, 'completed' with a record quarantined, still reads exit 8 in runs and status", async () => {
    const old = join(dir.path, `${kind}-old.duckdb`);
    await copyFile(db, old);
    const wh = await Warehouse.open(old);
    try {
      await wh.query("UPDATE sync_runs SET status = 'completed'");
    } finally {
      await wh.close();
    }
    const runs = await fragsync(['runs', '--db', old, '--format', 'jsonl']);
    expect(JSON.parse(runs.stdout.trim())).toMatchObject({ cause: 'completed', exit_code: EXIT.quarantined });
    const status = JSON.parse((await fragsync(['status', '--db', old, '--json'])).stdout);
    expect(status.latestRun).toMatchObject({ status: 'completed', exitCode: EXIT.quarantined });
  });

  it('--revalidate keeps what still fails, and releases a record once it validates', async () => {
    const still = await fragsync(['quarantine', '--db', db, '--revalidate'], KEY);
    expect(still.code, still.stderr).toBe(EXIT.ok);
    expect(still.stdout.trim()).toBe('released 0 (now valid, loaded); 1 remain');
    // The same counts as one JSON object for a script (it printed the sentence).
    const json = await fragsync(['quarantine', '--db', db, '--revalidate', '--json'], KEY);
    expect(JSON.parse(json.stdout)).toEqual({
      released: 0,
      remaining: 1,
      superseded: 0,
      failedJobs: 0,
      unchecked: 0,
    });

    // "After an upgrade": a row whose payload today's schemas accept (the profile as it should
    // have been sent), quarantined after the sync's fetch of it.
    const truth = sim.groundTruth();
    const served = truth.fragrances.find((f) => f.id === id)!;
    const wh = await Warehouse.open(db);
    try {
      await wh.query(
        `INSERT INTO quarantine (run_id, "at", endpoint, key, reason, raw, scope)
         SELECT run_id, now(), '/v1/fragrances/{id}', ?, 'rejected by an older version', ?::JSON, 'response' FROM sync_runs`,
        [id, JSON.stringify(served)],
      );
    } finally {
      await wh.close();
    }
    const r = await fragsync(['quarantine', '--db', db, '--revalidate'], KEY);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout.trim()).toBe('released 1 (now valid, loaded); 1 remain');
    // The mirror is now exactly the service's truth, with no call made.
    const calls = sim.ledger().calls;
    expect(diffTables(truthTables(truth), await warehouseTables(db, truth.serviceDate))).toEqual({});
    expect(sim.ledger().calls).toBe(calls);
    const pending = jsonl((await fragsync(['quarantine', '--db', db, '--json'])).stdout);
    expect(pending.map((p) => p.reason)).toEqual([expect.stringMatching(why)]);
    const all = jsonl((await fragsync(['quarantine', '--db', db, '--json', '--all'])).stdout);
    expect(all).toHaveLength(2);
  });

  it('a later sync that fetches the record again, still invalid: exit 8, and still one open row, now its own', async () => {
    const r = await fragsync(['sync', '--base-url', sim.url, '--db', db, '--full'], KEY);
    expect(r.code, r.stderr).toBe(EXIT.quarantined);
    expect(r.stdout).toMatch(/^quarantined records: 1 /m);
    const rows = await withWarehouse(db, (wh) =>
      wh.query<{ latest: boolean }>(
        `SELECT run_id = (SELECT max(run_id) FROM sync_runs) AS latest FROM quarantine WHERE released_at IS NULL`,
      ),
    );
    // Two open rows for the one record before.
    expect(rows).toEqual([{ latest: true }]);
  });
});

describe('sync --json', () => {
  it('carries the quarantined records per endpoint and the exit code 8 the process ends with', async () => {
    const sim = await startSimulator({ fragrances: 12, invalidRecord: 'missing-key' });
    try {
      const r = await fragsync(
        ['sync', '--base-url', sim.url, '--db', join(dir.path, 'json.duckdb'), '--json'],
        KEY,
      );
      expect(r.code, r.stderr).toBe(EXIT.quarantined);
      const summary = JSON.parse(r.stdout) as {
        status: string;
        exitCode: number;
        quarantined: unknown;
        flagged: unknown;
      };
      expect(summary).toMatchObject({
        status: 'completed_with_quarantine',
        exitCode: EXIT.quarantined,
        quarantined: [{ endpoint: '/v1/fragrances/{id}', count: 1, example: expect.stringMatching(/name/) }],
        flagged: [],
      });
    } finally {
      await sim.close();
    }
  });
});

describe('a run that quarantined a record and then met the quota (--no-wait)', () => {
  it('exit 5; the quarantine line, then why the run ended as the last line', async () => {
    // 129 calls make the full sync; a reserve of 900 of 1000 stops it after 100. The broken
    // profile is among the first jobs (the first list page yields every profile).
    const sim = await startSimulator({ fragrances: 15, invalidRecord: 'wrong-type', dailyQuota: 1000 });
    try {
      const r = await fragsync(
        [
          'sync',
          '--base-url',
          sim.url,
          '--db',
          join(dir.path, 'quota.duckdb'),
          '--no-wait',
          '--reserve',
          '900',
        ],
        KEY,
      );
      expect(r.code, r.stderr).toBe(EXIT.quotaExhausted);
      const lines = said(r).filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l)); // the 10 s progress line
      expect(lines).toEqual([
        'fragsync sync: 1 record quarantined (not stored): `fragsync quarantine` lists them',
        expect.stringMatching(
          /^fragsync sync: stopped: the daily quota is down to the reserve and --no-wait was given; it resets at \S+Z, run again then to continue$/,
        ),
      ]);
    } finally {
      await sim.close();
    }
  });
});
