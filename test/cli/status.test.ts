import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { WriterLock } from '../../src/warehouse/writer-lock.ts';
import { fragsync } from '../helpers/cli.ts';
import { deadHolder } from '../helpers/dead-lock.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/** `fragsync status` as a real process, on a warehouse a real `fragsync sync` wrote. */
let sim: Simulator;
let dir: { path: string; cleanup(): Promise<void> };
let db: string;
let runId: string;
beforeAll(async () => {
  sim = await startSimulator({ fragrances: 12 });
  dir = await tempDir();
  db = join(dir.path, 'synced.duckdb');
  const r = await fragsync(['sync', '--base-url', sim.url, '--db', db], { FRAGSYNC_API_KEY: 'sim-key' });
  expect(r.code, r.stderr).toBe(EXIT.ok);
  runId = /^run (\S+): completed/m.exec(r.stdout)![1]!;
}, 60_000);
afterAll(async () => {
  await sim.close();
  await dir.cleanup();
});

describe('fragsync status', () => {
  it('reads a warehouse a sync wrote: spend today, the last quota figure, the latest run', async () => {
    const r = await fragsync(['status', '--db', db]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stderr).toBe('');
    const calls = sim.ledger().calls;
    const cents = sim.ledger().cents;
    expect(r.stdout).toMatch(
      new RegExp(
        `^ledger: cents today \\(UTC\\)\\s+${cents} in ${calls} calls \\(the service's day \\d{4}-\\d\\d-\\d\\d\\)$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(
      /^quota remaining \(ledger\)\s+\d+ as the service answered on its day \d{4}-\d\d-\d\d \(the lowest; this warehouse's last call sent \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); /m,
    );
    expect(r.stdout).toMatch(
      new RegExp(`^latest run\\s+${runId} completed: ${calls} calls, ${cents} cents$`, 'm'),
    );
  });

  /** A copy of the synced warehouse with a run marked running that made 3 calls of 2 cents. */
  async function withRunningRow(name: string, runId: string): Promise<string> {
    const path = join(dir.path, `${name}.duckdb`);
    await copyFile(db, path);
    const wh = await Warehouse.open(path);
    try {
      await wh.startRun(runId, new Date());
      for (let i = 0; i < 3; i++)
        await wh.query(
          `INSERT INTO api_calls (run_id, "at", method, endpoint, status, cost_cents, quota_remaining, _call_key)
           VALUES (?, now(), 'GET', '/v1/fragrances/{id}/similar', 200, 2, 90, ?)`,
          [runId, `${runId}-${i}`],
        );
    } finally {
      await wh.close();
    }
    return path;
  }

  it("counts today's spend on the service's day, as the day cap does: after advance-day, the nightly's cents only", async () => {
    const ahead = await startSimulator({ fragrances: 12, seed: 3 });
    const aheadDb = join(dir.path, 'ahead.duckdb');
    const sync = () =>
      fragsync(['sync', '--base-url', ahead.url, '--db', aheadDb], { FRAGSYNC_API_KEY: 'sim-key' });
    try {
      expect((await sync()).code).toBe(EXIT.ok);
      const full = ahead.ledger().cents;
      const res = await fetch(`${ahead.url}/_sim/advance-day`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      expect((await sync()).code).toBe(EXIT.ok);
      const nightly = ahead.ledger().cents - full;
      const day = ahead.now().toISOString().slice(0, 10);
      const r = await fragsync(['status', '--db', aheadDb]);
      // Before, this machine's day: the full sync of the service's day before as well.
      expect(r.stdout).toMatch(
        new RegExp(
          `^ledger: cents today \\(UTC\\)\\s+${nightly} in \\d+ calls \\(the service's day ${day}\\)$`,
          'm',
        ),
      );
    } finally {
      await ahead.close();
    }
  }, 60_000);

  it("the latest run's line says what it quarantined and stored apart, as --json does; nothing when none", async () => {
    const path = join(dir.path, 'apart.duckdb');
    await copyFile(db, path);
    const wh = await Warehouse.open(path);
    try {
      await wh.startRun('run-q', new Date());
      await wh.query(
        `INSERT INTO quarantine (run_id, "at", endpoint, key, reason)
         SELECT 'run-q', now(), '/v1/fragrances/{id}', 'f' || i, 'invalid' FROM range(2) t(i)`,
      );
      await wh.query(
        `INSERT INTO similar_fragrances_overflow (fragrance_id, similar_id, rank, _run_id)
         SELECT 'f0', 's' || i, i, 'run-q' FROM range(3) t(i)`,
      );
      await wh.finishRun('run-q', 'completed', new Date());
    } finally {
      await wh.close();
    }
    const r = await fragsync(['status', '--db', path]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(
      /^latest run\s+run-q completed: 0 calls, 0 cents, quarantined 2, stored apart 3 \(overflow tables\)$/m,
    );
    const j = await fragsync(['status', '--db', path, '--json']);
    expect(JSON.parse(j.stdout).latestRun).toMatchObject({
      runId: 'run-q',
      quarantinedRecords: 2,
      storedApartRows: 3,
    });
    // The synced warehouse's run quarantined and stored apart nothing: its line says neither
    // (the first test's line ends at its cents).
  });

  it('a run still going (paused for quota, say) shows the calls and cents its ledger holds so far', async () => {
    const running = await withRunningRow('running', 'run-live');
    // The lock its sync holds (this test's process stands for it, alive).
    const lock = WriterLock.acquire(running, 'run-live');
    try {
      const r = await fragsync(['status', '--db', running]);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      expect(r.stdout).toMatch(/^latest run\s+run-live running: 3 calls, 6 cents$/m);
      expect(r.stdout).toMatch(/^state\s+running \(sync run run-live\)$/m);
    } finally {
      lock.release();
    }
  });

  it('without Redis, a run whose process died (kill -9: its lock left behind) did not finish, as with Redis', async () => {
    const dead = await withRunningRow('dead', 'run-dead');
    // The lock file a killed sync leaves: its pid is a process that has exited.
    await writeFile(`${dead}.lock`, JSON.stringify(deadHolder('run-dead')));
    for (const path of [dead, await withRunningRow('dead-unlocked', 'run-dead')]) {
      const r = await fragsync(['status', '--db', path]);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      expect(r.stdout).toMatch(
        /^latest run\s+run-dead did not finish \(its process ended\): 3 calls, 6 cents$/m,
      );
      expect(r.stdout).toMatch(
        /^state\s+no run going on; the last run run-dead did not finish \(its process ended; the next sync records it as died\)$/m,
      );
      expect(r.stdout).not.toMatch(/^writer /m);
    }
  });

  it("a run whose writer lock is another host's (a shared disk) is unknown, not running nor ended", async () => {
    const path = await withRunningRow('other-host', 'run-far');
    const far = { ...deadHolder('run-far'), host: 'another-host.invalid', pid: 4242 };
    await writeFile(`${path}.lock`, JSON.stringify(far));
    const r = await fragsync(['status', '--db', path]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(
      /^latest run\s+run-far running or not: unknown \(its writer lock names pid 4242 on another-host\.invalid, another host: not checkable from here; --redis reads its lease when it runs on BullMQ\): 3 calls, 6 cents$/m,
    );
    expect(r.stdout).toMatch(
      /^state\s+no run going on; the last run run-far is marked running; whether its process lives is unknown \(/m,
    );
    const j = JSON.parse((await fragsync(['status', '--db', path, '--json'])).stdout) as {
      running: boolean;
      latestRun: { processEnded: boolean | null; exitCode: number | null };
    };
    expect(j.latestRun).toMatchObject({ processEnded: null, exitCode: null });
  });

  it('names the sync going on from its writer lock, and says when it waits for the quota reset', async () => {
    const quiet = await fragsync(['status', '--db', db]);
    expect(quiet.stdout).not.toMatch(/^writer /m);
    // The lock a sync takes for its run (this test's process stands for it, alive).
    const lock = WriterLock.acquire(db, 'run-paused');
    try {
      const writing = await fragsync(['status', '--db', db]);
      expect(writing.code, writing.stderr).toBe(EXIT.ok);
      expect(writing.stdout).toMatch(
        new RegExp(`^writer\\s+sync run run-paused \\(pid ${process.pid}, started \\S+\\): running$`, 'm'),
      );
      lock.paused(new Date('2030-01-02T00:00:00Z'));
      const paused = await fragsync(['status', '--db', db]);
      expect(paused.code, paused.stderr).toBe(EXIT.ok);
      expect(paused.stdout).toMatch(
        /^writer\s+sync run run-paused \(pid \d+, started \S+\): paused for quota until 2030-01-02T00:00:00\.000Z$/m,
      );
    } finally {
      lock.release();
    }
  });

  it('with Redis, after a run ended, says no run is going on and how the last one ended (not "running")', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('status');
    const queued = join(dir.path, 'queued.duckdb');
    const redisFlags = ['--redis', redisUrl, '--queue-prefix', prefix];
    try {
      const synced = await fragsync(['sync', '--base-url', sim.url, '--db', queued, ...redisFlags], {
        FRAGSYNC_API_KEY: 'sim-key',
      });
      expect(synced.code, synced.stderr).toBe(EXIT.ok);
      const id = /^run (\S+): completed/m.exec(synced.stdout)![1]!;
      const r = await fragsync(['status', '--db', queued, ...redisFlags]);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      expect(r.stdout).toMatch(
        new RegExp(
          `^state\\s+no run going on; the last run ${id} ended completed at \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z$`,
          'm',
        ),
      );
      // Two quota figures, each saying where it comes from and when it was read.
      expect(r.stdout).toMatch(/^quota remaining \(Redis\)\s+\d+ now: the lowest the service reported /m);
      expect(r.stdout).toMatch(/^quota remaining \(ledger\)\s+\d+ as the service answered /m);
      expect(r.stdout).toMatch(/^quota limit \(Redis\)\s+\d+$/m);
      expect(r.stdout).toMatch(/^cents spent today \(Redis\)\s+\d+ by syncs sharing this Redis$/m);
      // The same figures as JSON: Redis's beside the ledger's, the queues drained.
      const j = JSON.parse((await fragsync(['status', '--db', queued, ...redisFlags, '--json'])).stdout);
      const spent = await one<{ cents: number }>(
        queued,
        'SELECT sum(cost_cents)::INTEGER AS cents FROM api_calls',
      );
      expect(j).toMatchObject({
        redis: true,
        running: false,
        latestRun: { runId: id, status: 'completed', exitCode: EXIT.ok },
        centsTodayRedis: spent.cents,
        centsTodayLedger: spent.cents,
        callsInFlight: 0,
        queues: {
          fetch: { waiting: 0, active: 0, delayed: 0 },
          load: { waiting: 0, active: 0, delayed: 0 },
        },
      });
      expect(j.quotaLimitCalls).toEqual(expect.any(Number));
      expect(j.quotaRemainingCalls).toEqual(expect.any(Number));
      expect(j.quotaReserveCalls).toEqual(expect.any(Number));
      expect(j.quotaResetAt).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      // While a sync holds the warehouse's writer lock, the run is going on.
      const lock = WriterLock.acquire(queued, 'run-going');
      try {
        const going = await fragsync(['status', '--db', queued, ...redisFlags]);
        expect(going.stdout).toMatch(/^state\s+running \(sync run run-going\)$/m);
      } finally {
        lock.release();
      }
    } finally {
      await cleanPrefix(redisUrl, prefix);
    }
  }, 60_000);

  it('a warehouse a running sync holds is shown as such, exit 0', async () => {
    const held = await Warehouse.open(db);
    try {
      const r = await fragsync(['status', '--db', db]);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      expect(r.stdout).toMatch(/^warehouse\s+\S+synced\.duckdb is held by a running sync/m);
    } finally {
      await held.close();
    }
  });

  it('a warehouse it cannot read is one line on stderr and a non-zero exit', async () => {
    const broken = join(dir.path, 'broken.duckdb');
    await writeFile(broken, 'this is not a DuckDB file');
    const r = await fragsync(['status', '--db', broken]);
    // A file that is no warehouse is the user's input: 2, as sync, runs and plan say it.
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^fragsync status: cannot read the warehouse \S+broken\.duckdb: /),
    ]);
    expect(r.stdout).toMatch(/^mode\s+in-process \(no Redis\)/m);
    // Its runs are unknown, not "no run recorded in this warehouse".
    expect(r.stdout).toMatch(
      /^state\s+no run going on; the last run is unknown \(the warehouse could not be read\)$/m,
    );
  });

  /** One row of a query on a warehouse, opened read-only. */
  async function one<T>(path: string, sql: string, params: unknown[] = []): Promise<T> {
    const wh = await Warehouse.open(path, { readOnly: true });
    try {
      return (await wh.query<T>(sql, params))[0]!;
    } finally {
      await wh.close();
    }
  }

  it('--json: one object on stdout whose figures are what the warehouse holds', async () => {
    const r = await fragsync(['status', '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const j = JSON.parse(r.stdout);
    const ledger = await one<{ calls: number; cents: number; remaining: number }>(
      db,
      `SELECT count(*)::INTEGER AS calls, sum(cost_cents)::INTEGER AS cents,
         -- The lowest the service answered: concurrent answers settle out of order, so the
         -- newest row by "at" need not carry it (it did not once, on a loaded machine).
         min(quota_remaining)::INTEGER AS remaining
       FROM api_calls WHERE run_id = ?`,
      [runId],
    );
    const row = await one<{ started: string; ended: string }>(
      db,
      `SELECT strftime(timezone('UTC', started_at), '%Y-%m-%dT%H:%M:%SZ') AS started,
         strftime(timezone('UTC', finished_at), '%Y-%m-%dT%H:%M:%SZ') AS ended FROM sync_runs WHERE run_id = ?`,
      [runId],
    );
    expect(j.latestRun).toEqual({
      runId,
      mode: 'full',
      status: 'completed',
      processEnded: true,
      exitCode: EXIT.ok,
      startedAt: row.started,
      endedAt: row.ended,
      calls: ledger.calls,
      cents: ledger.cents,
      quarantinedRecords: 0,
      failedJobs: 0,
      earlierInCycleRecords: 0,
      earlierInCycleFailedJobs: 0,
      storedApartRows: 0,
    });
    expect(j).toMatchObject({
      warehousePath: db,
      warehouseState: 'read',
      redis: false,
      running: false,
      runningRunId: null,
      paused: false,
      pausedUntil: null,
      // Only Redis knows these: null, not 0.
      quotaLimitCalls: null,
      quotaRemainingCalls: null,
      quotaReserveCalls: null,
      centsTodayRedis: null,
      queues: null,
      writer: null,
      quotaRemainingCallsLedger: ledger.remaining,
      centsTodayLedger: ledger.cents,
      callsTodayLedger: ledger.calls,
    });
    expect(j.quotaLedgerSentAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(j.serviceDay).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  it('--json: a run going on (its writer lock held, paused for quota) is running, with no exit code yet', async () => {
    const running = await withRunningRow('running-json', 'run-live-json');
    const lock = WriterLock.acquire(running, 'run-live-json');
    try {
      lock.paused(new Date('2030-01-02T00:00:00Z'));
      const r = await fragsync(['status', '--db', running, '--json']);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const j = JSON.parse(r.stdout);
      expect(j).toMatchObject({
        running: true,
        runningRunId: 'run-live-json',
        paused: true,
        pausedUntil: '2030-01-02T00:00:00.000Z',
        writer: { runId: 'run-live-json', pid: process.pid, state: 'paused' },
      });
      expect(j.latestRun).toMatchObject({
        runId: 'run-live-json',
        status: 'running',
        processEnded: false,
        exitCode: null,
        endedAt: null,
        calls: 3,
        cents: 6,
      });
    } finally {
      lock.release();
    }
    // Its process gone (no lock): marked running, but ended.
    const dead = JSON.parse((await fragsync(['status', '--db', running, '--json'])).stdout);
    expect(dead).toMatchObject({ running: false, latestRun: { processEnded: true, exitCode: null } });
  });

  it('--json: a warehouse a sync holds, or one it cannot read, has null figures; the error stays on stderr', async () => {
    const held = await Warehouse.open(db);
    try {
      const r = await fragsync(['status', '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      expect(JSON.parse(r.stdout)).toMatchObject({
        warehouseState: 'heldBySync',
        latestRun: null,
        centsTodayLedger: null,
        quotaRemainingCallsLedger: null,
      });
    } finally {
      await held.close();
    }
    const broken = join(dir.path, 'broken-json.duckdb');
    await writeFile(broken, 'this is not a DuckDB file');
    const r = await fragsync(['status', '--db', broken, '--json']);
    expect(r.code).toBe(EXIT.badInput);
    expect(JSON.parse(r.stdout)).toMatchObject({ warehouseState: 'unreadable', latestRun: null });
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^fragsync status: cannot read the warehouse \S+broken-json\.duckdb: /),
    ]);
    const absent = JSON.parse(
      (await fragsync(['status', '--db', join(dir.path, 'none.duckdb'), '--json'])).stdout,
    );
    expect(absent).toMatchObject({ warehouseState: 'absent', latestRun: null, centsTodayLedger: null });
  });
});
