import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { slotRecords, type SlotRecord } from '../../src/queue/schedule.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { fragsync, said } from '../helpers/cli.ts';
import { queryWarehouse } from '../helpers/governed.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorkers, type WorkerProc } from '../helpers/worker-process.ts';

/**
 * `fragsync schedule` on real Redis with real `fragsync worker` processes and the simulator
 * over HTTP (issue 18 item 5). The pattern fires every 2 seconds (cron with seconds), and a
 * scheduled sync (a `fragsync sync` process a worker starts) takes longer than that here, so
 * slots come while a run is going on: where a test needs a run to be going on, the service
 * answers after SLOW_MS, and a sync, which reads a list before the items it names, cannot
 * end within two of its answers, whatever the machine's speed or load.
 */
const SLOW_MS = 1_000;
const redisUrl = inject('redisUrl');
let dir: { path: string; cleanup(): Promise<void> };
let sim: Simulator;
let redis: Redis;
beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ fragrances: 4, seed: 21 });
  redis = new Redis(redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await sim.close();
  await dir.cleanup();
});

const EVERY_2_S = '*/2 * * * * *';

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ran = (rs: SlotRecord[]) => rs.filter((r) => r.outcome === 'ran');
const skipped = (rs: SlotRecord[]) => rs.filter((r) => r.outcome === 'skipped');

function schedule(action: string, prefix: string, more: string[] = []) {
  return fragsync(['schedule', action, '--redis', redisUrl, '--queue-prefix', prefix, ...more]);
}

describe('fragsync schedule', () => {
  it('runs one sync per slot with two workers, skips slots while a run goes on, shows and removes', async () => {
    const prefix = uniquePrefix('sched');
    const db = join(dir.path, 'slots.duckdb');
    let workers: WorkerProc[] = [];
    // Each run outlasts the next slot: a skipped slot must come.
    sim.setFaults({ latencyMs: SLOW_MS });
    try {
      const set = await schedule('set', prefix, [
        '--cron',
        EVERY_2_S,
        '--tz',
        'Europe/Paris',
        '--base-url',
        sim.url,
        '--db',
        db,
      ]);
      expect(said(set)).toEqual([]);
      expect(set.code).toBe(EXIT.ok);
      expect(set.stdout).toMatch(/^pattern +\*\/2 \* \* \* \* \*$/m);
      expect(set.stdout).toMatch(/^time zone Europe\/Paris$/m);
      expect(set.stdout).toContain(`fragsync sync --base-url ${sim.url} --db ${db}`);
      // No worker yet: the first slot's job waits.
      expect(await slotRecords(redis, prefix)).toEqual([]);

      workers = await startWorkers(2, redisUrl, prefix, []);
      const records = await until(
        'three runs and a skipped slot',
        () => slotRecords(redis, prefix),
        (rs) => ran(rs).length >= 3 && skipped(rs).length >= 1,
      );
      const removed = await schedule('remove', prefix);
      expect(removed.stdout).toMatch(/schedule removed/);
      // Let the run going on (if any) end, then read what happened.
      await until(
        'the last run to end',
        () => redis.get(`${prefix}:fragsync:schedule:running`),
        (v) => v === null,
      );
      const all = (await slotRecords(redis, prefix)).reverse();
      expect(all.length).toBeGreaterThanOrEqual(records.length);

      // Every slot was taken once, by one of the workers.
      const ids = all.map((r) => r.jobId);
      expect(new Set(ids).size).toBe(ids.length);
      // Runs never overlap: each started after the previous one ended.
      const runs = ran(all).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
      for (let i = 1; i < runs.length; i++)
        expect(runs[i]!.startedAt >= runs[i - 1]!.endedAt, JSON.stringify(runs)).toBe(true);
      // A skipped slot came while a run was going on, and names it.
      for (const s of skipped(all)) {
        const busy = runs.find((r) => r.jobId === s.busyWith);
        expect(busy, JSON.stringify(s)).toBeDefined();
        expect(s.startedAt >= busy!.startedAt && s.startedAt <= busy!.endedAt).toBe(true);
      }
      // Each run was one complete sync of the warehouse.
      expect(runs.map((r) => r.code)).toEqual(runs.map(() => EXIT.ok));
      const syncRuns = await queryWarehouse<{ status: string }>(db, 'SELECT status FROM sync_runs');
      expect(syncRuns.map((r) => r.status)).toEqual(runs.map(() => 'completed'));

      const show = await schedule('show', prefix, ['--db', db]);
      expect(show.code).toBe(EXIT.ok);
      expect(show.stdout).toMatch(/no schedule on queue prefix/);
      expect(show.stdout).toMatch(/ran, exit 0/);
      expect(show.stdout).toMatch(/last runs \(sync_runs\):\n {2}run-\S+ .* completed/);
    } finally {
      sim.setFaults({ latencyMs: 0 });
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  }, 300_000);

  it('after a downtime, the slots missed run once, not once each', async () => {
    const prefix = uniquePrefix('sched-down');
    const db = join(dir.path, 'down.duckdb');
    let workers: WorkerProc[] = [];
    try {
      const set = await schedule('set', prefix, ['--cron', EVERY_2_S, '--base-url', sim.url, '--db', db]);
      expect(set.code).toBe(EXIT.ok);
      // Down for at least four slots.
      const setAt = Date.now();
      await until(
        'four slots to pass',
        async () => Date.now(),
        (now) => now > setAt + 8_000,
      );
      const upAt = Date.now();
      workers = await startWorkers(2, redisUrl, prefix, []);
      await until(
        'a slot after the downtime',
        () => slotRecords(redis, prefix),
        (rs) => rs.some((r) => r.slotMs > upAt),
      );
      await schedule('remove', prefix);
      await until(
        'the last run to end',
        () => redis.get(`${prefix}:fragsync:schedule:running`),
        (v) => v === null,
      );
      const all = await slotRecords(redis, prefix);
      const missed = all.filter((r) => r.slotMs < upAt);
      expect(missed, JSON.stringify(all)).toHaveLength(1);
      expect(missed[0]!.outcome).toBe('ran');
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  }, 300_000);

  it('a worker stopped during a scheduled run has the sync drain, not waits for it to end', async () => {
    const prefix = uniquePrefix('sched-stop');
    const db = join(dir.path, 'stop.duckdb');
    let workers: WorkerProc[] = [];
    // The run must still be going on when its worker is stopped: it cannot end before two
    // answers, and the worker is told as soon as the run is seen to start.
    sim.setFaults({ latencyMs: SLOW_MS });
    try {
      const set = await schedule('set', prefix, ['--cron', EVERY_2_S, '--base-url', sim.url, '--db', db]);
      expect(set.code).toBe(EXIT.ok);
      workers = await startWorkers(1, redisUrl, prefix, []);
      await until(
        'a run to start',
        () => redis.get(`${prefix}:fragsync:schedule:running`),
        (v) => v !== null,
      );
      await workers[0]!.stop();
      await schedule('remove', prefix);
      const [last] = await slotRecords(redis, prefix);
      // Told to stop (SIGTERM): drained (130), or ended by the signal if it came before the
      // sync set its handler (143); without being told, the run would have completed (0).
      expect(last?.outcome).toBe('ran');
      expect([130, 143]).toContain(last?.code);
    } finally {
      sim.setFaults({ latencyMs: 0 });
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  }, 300_000);

  it('refuses a bad action, a missing pattern and an unknown zone in one line, exit 2', async () => {
    const prefix = uniquePrefix('sched-bad');
    const bad = await schedule('launch', prefix);
    expect([bad.code, said(bad)]).toEqual([
      EXIT.badInput,
      ["fragsync schedule: unknown action 'launch': set, show or remove"],
    ]);
    const noCron = await schedule('set', prefix);
    expect([noCron.code, said(noCron)]).toEqual([
      EXIT.badInput,
      [expect.stringMatching(/set needs --cron PATTERN/)],
    ]);
    const zone = await schedule('set', prefix, ['--cron', '0 2 * * *', '--tz', 'Mars/Olympus']);
    expect([zone.code, said(zone)]).toEqual([
      EXIT.badInput,
      [expect.stringMatching(/--tz Mars\/Olympus is not a time zone/)],
    ]);
    const pattern = await schedule('set', prefix, ['--cron', 'every night']);
    expect(pattern.code).toBe(EXIT.badInput);
    expect(said(pattern)).toEqual([
      expect.stringMatching(/^fragsync schedule: --cron 'every night' was refused: /),
    ]);
    await cleanPrefix(redisUrl, prefix);
  }, 120_000);
});
