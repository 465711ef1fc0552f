import { describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectLedgerWithin,
  expectMirror,
  governedFiles,
  lockConfig,
  queryWarehouse,
  repeatBound,
} from '../helpers/governed.ts';
import {
  expectDrained,
  expectNoNativeAbort,
  expectStoppedAtOnce,
  interruptOnce,
  interruptTwice,
  serviceQuiet,
  sleep,
} from '../helpers/interrupt.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { spawnSync, type SyncProcOptions } from '../helpers/sync-process.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorker, type WorkerProc } from '../helpers/worker-process.ts';

/**
 * Ctrl-C during `fragsync sync`, the real command in its own process, on both drivers. The
 * first SIGINT drains: no job is taken, the jobs in hand finish and are loaded, the warehouse
 * closes, the partial summary is printed, exit 130; so the next sync pays nothing again. A
 * second SIGINT ends the process at once by the signal (the shell's 130), never with
 * DuckDB's native abort; the next sync still ends exact, with the ledger equal to the service's.
 */

const CATALOGUE = { fragrances: 60, seed: 71 };
const CONCURRENCY = 4;
/** Each test runs up to three syncs of which one waits for 3-second answers. */
const TIMEOUT_MS = 180_000;
/** Job locks on BullMQ where a killed process's jobs are retaken: renewed every 4 s, 3-second answers fit. */
const LOCK_MS = 8000;

const files = governedFiles();

describe.each(['memory', 'bullmq'] as const)('SIGINT during a sync (%s driver)', (driver) => {
  const redis = (name: string): SyncProcOptions['redis'] =>
    driver === 'bullmq' ? { url: inject('redisUrl'), prefix: uniquePrefix(name) } : undefined;

  it(
    'first SIGINT: the calls in flight are loaded, partial summary, exit 130; the next sync is exact and repeats none of them',
    async () => {
      const clean = await cleanRunCalls(
        () => startSimulator(CATALOGUE),
        files.path(`clean-${driver}.duckdb`),
        files.config,
      );
      const sim = await startSimulator(CATALOGUE);
      // 25 ms answers: the run lasts seconds, so the signal lands while work is left.
      sim.setFaults({ latencyMs: 25 });
      const q = redis('sigint-drain');
      // BullMQ: another process fetches too; the interrupted sync must stop it taking jobs.
      let worker: WorkerProc | null = null;
      if (q) worker = await startWorker(q.url, q.prefix, ['--concurrency', String(CONCURRENCY)]);
      const opts: SyncProcOptions = { config: files.config, concurrency: CONCURRENCY, redis: q };
      const dbPath = files.path(`drain-${driver}.duckdb`);
      try {
        const delayMs = Math.floor(Math.random() * 400);
        const { end, inFlight, inTime } = await interruptOnce(sim, dbPath, opts, delayMs);
        expect(inTime, `the run ended before its interrupt: ${end.output}`).toBe(true);
        expectDrained(end);
        await serviceQuiet(sim);
        const atExit = sim.ledger().calls;
        // Every call made until then is in the warehouse: none was thrown away.
        await expectLedgerEqual(sim, dbPath);
        if (worker) {
          // The worker took no job of the stopped run after it exited: a SIGTERM then ends it
          // cleanly (exit 0, after finishing the jobs in hand, of which it has none).
          const exited = new Promise<number | null>((r) => worker!.child.once('exit', r));
          await worker.stop();
          expect(await exited).toBe(0);
          expect(worker.output.join('')).toContain('stopped after');
          expect(sim.ledger().calls).toBe(atExit);
          worker = null;
        }

        sim.setFaults({ latencyMs: 0 });
        const next = await spawnSync(sim, dbPath, opts).exited;
        expect(next.code, next.output).toBe(EXIT.ok);
        await expectMirror(sim, dbPath);
        await expectLedgerEqual(sim, dbPath);
        const runs = await queryWarehouse<{ status: string }>(
          dbPath,
          'SELECT status FROM sync_runs ORDER BY started_at',
        );
        expect(runs.map((r) => r.status)).toEqual(['interrupted', 'completed']);
        // Paid again by the next sync: nothing (the jobs in hand finished and were loaded), so
        // certainly not more than the calls in flight at the interrupt.
        const dup = callsWithStatus(sim, 200) - clean.calls;
        console.log(`${driver}: SIGINT after ${delayMs} ms: ${inFlight} calls in flight, ${dup} paid again`);
        expect(dup, `${inFlight} in flight at the interrupt`).toBe(0);
      } finally {
        await worker?.stop();
        await sim.close();
        if (q) await cleanPrefix(q.url, q.prefix);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'SIGTERM during a quota pause: drains at once instead of waiting for the reset, exit 130',
    async () => {
      // 100 calls a day, and a service day of 10 minutes: the run pauses long before it is done.
      const sim = await startSimulator({ ...CATALOGUE, dailyQuota: 100, daySeconds: 600 });
      const q = redis('sigterm-pause');
      const opts: SyncProcOptions = {
        config: files.config,
        concurrency: CONCURRENCY,
        redis: q,
        logLevel: 'info',
      };
      const dbPath = files.path(`pause-${driver}.duckdb`);
      try {
        const proc = spawnSync(sim, dbPath, opts);
        let exited = false;
        void proc.exited.finally(() => (exited = true));
        while (!proc.output().includes('quota paused until') && !exited) await sleep(10);
        expect(exited, proc.output()).toBe(false);
        proc.signal('SIGTERM');
        const end = await proc.exited;
        expectDrained(end);
        await serviceQuiet(sim);
        await expectLedgerEqual(sim, dbPath);
        const runs = await queryWarehouse<{ status: string }>(dbPath, 'SELECT status FROM sync_runs');
        expect(runs.map((r) => r.status)).toEqual(['interrupted']);
      } finally {
        await sim.close();
        if (q) await cleanPrefix(q.url, q.prefix);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'second SIGINT: ends at once by the signal, no native abort; the next sync is exact',
    async () => {
      const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
      // Answers that take 3 s: the drain is still waiting for them when the second signal comes.
      sim.setFaults({ latencyMs: 3000 });
      const q = redis('sigint-twice');
      // The jobs the process stopped at once held are taken by the next sync once their lock
      // lapses (queue.lockMs, 30 s by default): a short lock, so the next sync does not wait.
      const config = q ? await lockConfig(files.path('lock-twice.json'), LOCK_MS) : files.config;
      const opts: SyncProcOptions = { config, concurrency: CONCURRENCY, redis: q };
      const dbPath = files.path(`twice-${driver}.duckdb`);
      try {
        const { end, inTime } = await interruptTwice(sim, dbPath, opts);
        expect(inTime, `the run ended before the second signal: ${end.output}`).toBe(true);
        expectNoNativeAbort(end);
        // Ended by the signal itself (a shell reports 130), not by a clean exit.
        expect(end.signal, end.output).toBe('SIGINT');
        expect(end.output).toContain('stopped at once');
        // What it spent, as far as the process had counted: answers it had read (none yet, on
        // BullMQ, when the workers' first reports had not reached it: seen in CI), never more
        // than the service billed.
        const spent = /^fragsync sync: run (\S+) spent (\d+) calls, (\d+) cents /m.exec(end.output);
        expect(spent, end.output).not.toBeNull();
        expect(Number(spent![2])).toBeLessThanOrEqual(sim.ledger().calls);
        expect(Number(spent![3])).toBeLessThanOrEqual(sim.ledger().cents);

        sim.setFaults({ latencyMs: 0 });
        const next = await spawnSync(sim, dbPath, opts).exited;
        expect(next.code, next.output).toBe(EXIT.ok);
        // The next sync recorded the run stopped at once as interrupted (exit 130), not died.
        await expectStoppedAtOnce(dbPath, spent![1]!);
        // Its log says so too (it said "recorded as died" of a run it recorded interrupted).
        expect(next.output).toContain(`"runs":[{"runId":"${spent![1]}","status":"interrupted"}]`);
        // The requests the killed process had on the wire are answered (and billed) by now.
        await serviceQuiet(sim);
        await expectMirror(sim, dbPath);
        // Killed at once: a request leaving at that instant is ledgered, and may never have
        // been read by the service (seen here: 3 of 6 in flight, on a loaded machine).
        await expectLedgerWithin(sim, dbPath, CONCURRENCY);
        // Jobs in hand were dropped: at most their calls are paid again (as many jobs as the
        // process runs at once under these flags), and nothing left unbought.
        const flags = { config, concurrency: String(CONCURRENCY), redis: q?.url };
        expectRepeatsWithin(sim, await cleanRun(), repeatBound(sim, jobsPerProcess(flags)), driver);
      } finally {
        await sim.close();
        if (q) await cleanPrefix(q.url, q.prefix);
      }
    },
    TIMEOUT_MS,
  );
});

async function cleanRun(): Promise<{ paid: string[] }> {
  const dbPath = files.path(`clean-twice-${Math.random().toString(16).slice(2)}.duckdb`);
  return cleanRunCalls(() => startSimulator({ ...CATALOGUE, recordPaid: true }), dbPath, files.config);
}
