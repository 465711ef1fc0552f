import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { writeFile } from 'node:fs/promises';
import { readWarehouseFigures } from '../../src/dashboard/warehouse-figures.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { WriterLock } from '../../src/warehouse/writer-lock.ts';
import { fragsync } from '../helpers/cli.ts';
import { deadHolder, reusedPidHolder } from '../helpers/dead-lock.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * `fragsync runs` on a warehouse whose runs were opened and closed by the warehouse's own
 * startRun/finishRun (calls and cents come from the ledger rows of each run).
 */

let dir: { path: string; cleanup(): Promise<void> };
let db: string;
/** run-c's sync, alive: this test's process stands for it, holding its writer lock. */
let lock: WriterLock;

async function ledger(wh: Warehouse, runId: string, calls: number, centsEach: number, at: string) {
  for (let i = 0; i < calls; i++)
    await wh.query(
      `INSERT INTO api_calls (run_id, "at", method, endpoint, status, cost_cents, quota_remaining, _call_key)
       VALUES (?, ?::TIMESTAMPTZ, 'GET', '/v1/fragrances', 200, ?, 1000, ?)`,
      [runId, at, centsEach, `${runId}-${i}`],
    );
}

beforeAll(async () => {
  dir = await tempDir('fragsync-runs-');
  db = join(dir.path, 'wh.duckdb');
  const wh = await Warehouse.open(db);
  await wh.startRun('run-a', new Date('2026-01-01T02:00:00Z'));
  await ledger(wh, 'run-a', 3, 5, '2026-01-01T02:00:10Z');
  // 5 min 30.6 s: rounded to 00:05:31, as the summary rounds (it was cut to 00:05:30).
  await wh.finishRun('run-a', 'completed', new Date('2026-01-01T02:05:30.600Z'));
  await wh.startRun('run-b', new Date('2026-01-02T02:00:00Z'), { mode: 'nightly', policy: [] });
  await ledger(wh, 'run-b', 2, 25, '2026-01-02T02:00:10Z');
  await wh.finishRun('run-b', 'quota_exhausted', new Date('2026-01-02T03:00:00Z'));
  await wh.startRun('run-c', new Date('2026-01-03T02:00:00Z'));
  // A run still going (or paused for quota): its calls are in the ledger, not yet in sync_runs.
  await ledger(wh, 'run-c', 4, 10, '2026-01-03T02:00:10Z');
  await wh.close();
  lock = WriterLock.acquire(db, 'run-c');
});
afterAll(async () => {
  lock.release();
  await dir.cleanup();
});

/** A warehouse whose latest run is still marked running, with `lockFile` beside it (or none). */
async function markedRunning(name: string, lockFile: object | null): Promise<string> {
  const path = join(dir.path, `${name}.duckdb`);
  const wh = await Warehouse.open(path);
  await wh.startRun('run-old', new Date('2026-04-01T02:00:00Z'));
  await wh.finishRun('run-old', 'completed', new Date('2026-04-01T02:01:00Z'));
  await wh.startRun('run-marked', new Date('2026-04-02T02:00:00Z'));
  await ledger(wh, 'run-marked', 2, 1, '2026-04-02T02:00:10Z');
  await wh.close();
  if (lockFile) await writeFile(`${path}.lock`, JSON.stringify(lockFile));
  return path;
}

const rowsOf = async (path: string) => {
  const r = await fragsync(['runs', '--db', path, '--format', 'json']);
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return { rows: JSON.parse(r.stdout) as Record<string, unknown>[], stderr: r.stderr };
};

describe('fragsync runs', () => {
  it('takes --json as sync, status and plan do: the same array as --format json', async () => {
    const json = await fragsync(['runs', '--db', db, '--json']);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const format = await fragsync(['runs', '--db', db, '--format', 'json']);
    // run-c is still going: its duration grows between the two reads.
    const still = (out: string) =>
      (JSON.parse(out) as Record<string, unknown>[]).map((r) => ({
        ...r,
        duration: r.run_id === 'run-c' ? '-' : r.duration,
      }));
    expect(still(json.stdout)).toEqual(still(format.stdout));
    expect(JSON.parse(json.stdout).map((r: { run_id: string }) => r.run_id)).toEqual([
      'run-c',
      'run-b',
      'run-a',
    ]);
  });

  it('newest first: when, how long, the cause and its exit code, calls and cents from the ledger', async () => {
    const r = await fragsync(['runs', '--db', db, '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => ({ ...x, duration: x.run_id === 'run-c' ? '(running)' : x.duration }))).toEqual([
      {
        run_id: 'run-c',
        started_utc: '2026-01-03 02:00:00',
        ended_utc: null,
        duration: '(running)',
        mode: 'full',
        cause: 'running',
        exit_code: null,
        calls: 4,
        cents: 40,
      },
      {
        run_id: 'run-b',
        started_utc: '2026-01-02 02:00:00',
        ended_utc: '2026-01-02 03:00:00',
        duration: '01:00:00',
        mode: 'nightly',
        cause: 'quota_exhausted',
        exit_code: EXIT.quotaExhausted,
        calls: 2,
        cents: 50,
      },
      {
        run_id: 'run-a',
        started_utc: '2026-01-01 02:00:00',
        ended_utc: '2026-01-01 02:05:30',
        duration: '00:05:31',
        mode: 'full',
        cause: 'completed',
        exit_code: EXIT.ok,
        calls: 3,
        cents: 15,
      },
    ]);
  });

  it('a table by default; --limit takes the latest N', async () => {
    const r = await fragsync(['runs', '--db', db, '--limit', '2', '--width', '200']);
    expect(r.code).toBe(EXIT.ok);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(
      /│\s+run_id\s+│\s+started_utc\s+│\s+ended_utc\s+│\s+duration\s+│\s+mode\s+│\s+cause\s+│\s+exit_code\s+│\s+calls\s+│\s+cents\s+│/,
    );
    expect(lines.filter((l) => /│ run-[abc] /.test(l)).map((l) => /run-[abc]/.exec(l)![0])).toEqual([
      'run-c',
      'run-b',
    ]);
    expect(r.stdout).toMatch(
      /│ run-b +│ 2026-01-02 02:00:00 │ 2026-01-02 03:00:00 │ 01:00:00 +│ nightly │ quota_exhausted │ +5 │ +2 │ +50 │/,
    );
    expect(r.stdout).toContain('2 rows  9 columns');
  });

  it('shows the per-run columns a newer warehouse keeps (mode, rows added/changed/removed)', async () => {
    const extended = join(dir.path, 'extended.duckdb');
    const wh = await Warehouse.open(extended);
    await wh.startRun('run-x', new Date('2026-02-01T00:00:00Z'));
    await wh.finishRun('run-x', 'completed', new Date('2026-02-01T00:01:00Z'));
    await wh.query('ALTER TABLE sync_runs ADD COLUMN mode VARCHAR');
    await wh.query('ALTER TABLE sync_runs ADD COLUMN rows_added INTEGER');
    await wh.query("UPDATE sync_runs SET mode = 'nightly', rows_added = 12");
    await wh.close();
    const r = await fragsync(['runs', '--db', extended, '--format', 'jsonl']);
    expect(JSON.parse(r.stdout)).toMatchObject({
      run_id: 'run-x',
      cause: 'completed',
      mode: 'nightly',
      rows_added: 12,
    });
  });

  it('a run whose process died is shown as ended at an unknown time, found dead by the next sync', async () => {
    const dead = join(dir.path, 'dead.duckdb');
    const wh = await Warehouse.open(dead);
    await wh.startRun('run-killed', new Date('2026-03-01T02:00:00Z'));
    // What the next sync's open stage does (sync/open-run.ts): close it at its own start.
    const next = new Date('2026-03-02T02:00:00Z');
    await wh.finishRun('run-killed', 'interrupted', next);
    await wh.startRun('run-next', next);
    await wh.finishRun('run-next', 'interrupted', new Date('2026-03-02T02:00:07.600Z'));
    await wh.close();
    const r = await fragsync(['runs', '--db', dead, '--format', 'json']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => [x.run_id, x.ended_utc, x.duration, x.cause])).toEqual([
      // A Ctrl-C'd run that finished itself keeps its end.
      ['run-next', '2026-03-02 02:00:07', '00:00:08', 'interrupted'],
      ['run-killed', 'unknown: found dead 2026-03-02 02:00:00', null, 'interrupted'],
    ]);
  });

  it('a run marked running whose process is gone (SIGKILL: no lock, a dead pid in it, or its pid given to another process since) is shown died, no exit code', async () => {
    for (const [name, lockFile] of [
      ['gone-unlocked', null],
      ['gone-dead-pid', deadHolder('run-marked')],
      // A live pid (this test's) with another start than the killed sync's: not its process.
      ['gone-reused-pid', reusedPidHolder('run-marked')],
      ['gone-before-reboot', reusedPidHolder('run-marked', { otherBoot: true })],
    ] as const) {
      const { rows, stderr } = await rowsOf(await markedRunning(name, lockFile));
      expect(stderr).toBe('');
      expect(rows[0]).toMatchObject({
        run_id: 'run-marked',
        ended_utc: 'unknown: its process is gone',
        duration: null,
        cause: 'died',
        exit_code: null,
        calls: 2,
      });
      expect(rows[1]).toMatchObject({ run_id: 'run-old', cause: 'completed', exit_code: EXIT.ok });
    }
  });

  it("the dashboard's runs table says the same: died without a lock naming it, running with one", async () => {
    const path = await markedRunning('dashboard', null);
    const causeOf = async () => {
      const r = await Warehouse.open(path, { readOnly: true });
      try {
        const { runs } = await readWarehouseFigures(r, new Date(), path);
        return runs.rows[0]![runs.columns.indexOf('cause')];
      } finally {
        await r.close();
      }
    };
    expect(await causeOf()).toBe('died');
    // Its sync alive: this test's process stands for it, holding its lock.
    const held = WriterLock.acquire(path, 'run-marked');
    try {
      expect(await causeOf()).toBe('running');
    } finally {
      held.release();
    }
  });

  it("a run whose writer lock is another host's is unknown, said on stderr; no exit code", async () => {
    const other = { ...deadHolder('run-marked'), host: 'another-host.invalid', pid: 4242 };
    const { rows, stderr } = await rowsOf(await markedRunning('other-host', other));
    expect(rows[0]).toMatchObject({
      run_id: 'run-marked',
      ended_utc: null,
      cause: 'unknown',
      exit_code: null,
    });
    expect(stderr).toMatch(
      /^fragsync runs: run run-marked is marked running; its writer lock names pid 4242 on another-host\.invalid, another host: not checkable from here/,
    );
  });

  it('a run the next sync found dead ("died") has no exit code: nobody saw it end, 130 would claim a Ctrl-C', async () => {
    const path = join(dir.path, 'died.duckdb');
    const wh = await Warehouse.open(path);
    await wh.startRun('run-killed', new Date('2026-05-01T02:00:00Z'));
    await wh.finishRun('run-killed', 'died', new Date('2026-05-02T02:00:00Z'));
    await wh.startRun('run-next', new Date('2026-05-02T02:00:00Z'));
    await wh.finishRun('run-next', 'completed', new Date('2026-05-02T02:00:05Z'));
    await wh.close();
    const { rows } = await rowsOf(path);
    expect(rows.map((x) => [x.run_id, x.ended_utc, x.cause, x.exit_code])).toEqual([
      ['run-next', '2026-05-02 02:00:05', 'completed', EXIT.ok],
      ['run-killed', 'unknown: found dead 2026-05-02 02:00:00', 'died', null],
    ]);
  });

  it('no warehouse is one line, exit 2', async () => {
    const r = await fragsync(['runs', '--db', join(dir.path, 'none.duckdb')]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(
      /^fragsync runs: no warehouse at \S+none\.duckdb \(run a sync first, or pass --db\)\n$/,
    );
  });
});
