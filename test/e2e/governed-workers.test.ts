import { writeFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  LogWatch,
  queryWarehouse,
  repeatBound,
  TEST_JITTER_MS,
} from '../helpers/governed.ts';
import { losableRedis } from '../helpers/redis-server.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { attemptsOf, cleanPrefix, startWorker } from '../helpers/worker-process.ts';

/**
 * The governor across processes: `fragsync worker` processes and the coordinator share one
 * Redis, one quota and one reserve; and a Redis that loses its data mid-run.
 */

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('governed sync: worker processes on one Redis', () => {
  it('two worker processes never take the service below the reserve, across several quota days', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('gov-workers');
    const reserve = 30;
    const dailyQuota = 150;
    // The reserve reaches the workers from the run (RunInfo.limits): a worker takes no --reserve.
    const shared = ['--config', files.config, '--concurrency', '4'];
    // Workers first: their start-up must not eat the first service day.
    const workers = await Promise.all([
      startWorker(redisUrl, prefix, shared),
      startWorker(redisUrl, prefix, shared),
    ]);
    // A day long enough that two workers spend its allowance before it ends even on a loaded
    // machine (3 s was not, at a load average of 25, and no pause happened): the reserve must be
    // reached for the test to mean anything.
    const sim = await startSimulator({ fragrances: 40, seed: 41, dailyQuota, daySeconds: 10 });
    /** Lowest remaining the service itself showed, per service day, sampled as the run goes. */
    const lowest = new Map<string, number>();
    const sample = setInterval(() => {
      const c = sim.clock();
      lowest.set(c.serviceDate, Math.min(lowest.get(c.serviceDate) ?? c.remaining, c.remaining));
    }, 5);
    try {
      const dbPath = files.path('workers.duckdb');
      const logs = new LogWatch();
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: {
          redis: redisUrl,
          'queue-prefix': prefix,
          reserve: String(reserve),
          config: files.config,
          concurrency: '4',
        },
      });
      clearInterval(sample);
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));
      const processed = workers.map(attemptsOf);
      expect(processed[0]).toBeGreaterThan(0);
      expect(processed[1]).toBeGreaterThan(0);
      // The catalogue needed more than one day's allowance above the reserve.
      expect(sim.ledger().calls).toBeGreaterThan(dailyQuota - reserve);
      expect(logs.pauses.length).toBeGreaterThanOrEqual(1);
      // Every response the service sent says what it had left: never less than the reserve,
      // so no window ever saw more than limit − reserve of our calls.
      const [low] = await queryWarehouse<{ n: number }>(
        dbPath,
        'SELECT min(quota_remaining)::INTEGER AS n FROM api_calls WHERE status = 200',
      );
      expect(Number(low?.n)).toBeGreaterThanOrEqual(reserve);
      for (const [day, n] of lowest) expect(n, `lowest remaining on ${day}`).toBeGreaterThanOrEqual(reserve);
      expect(callsWithStatus(sim, 429)).toBe(0);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      clearInterval(sample);
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  });

  it("worker processes govern by the run's cap and reserve, not by their own config", async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('gov-limits');
    const maxCents = 150;
    // No --max-cents and no --reserve here: the run's own limits reach them through Redis.
    const workers = await Promise.all([
      startWorker(redisUrl, prefix, ['--config', files.config, '--concurrency', '4']),
      startWorker(redisUrl, prefix, ['--config', files.config, '--concurrency', '4']),
    ]);
    const sim = await startSimulator({ fragrances: 40, seed: 41 });
    // The sync's own worker takes one job at a time, and answers take 20 ms: the jobs go to
    // the worker processes too (with the sync's at 8 jobs, a run of 150 cents could be done
    // by it alone before they took one: the clean-clone CI run saw both at 0).
    sim.setFaults({ latencyMs: 20 });
    const oneJob = files.path('one-job.json');
    await writeFile(
      oneJob,
      JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, queue: { concurrency: 1 } }),
    );
    try {
      const dbPath = files.path('worker-limits.duckdb');
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: {
          redis: redisUrl,
          'queue-prefix': prefix,
          'max-cents': String(maxCents),
          config: oneJob,
          concurrency: '1',
        },
      });
      expect(summary.status).toBe('budget_exhausted');
      await Promise.all(workers.map((w) => w.stop()));
      // The worker processes spent under the run's cap (BullMQ hands a job to whichever worker
      // asks first, so not necessarily both).
      expect(workers.map(attemptsOf).some((n) => n > 0)).toBe(true);
      // What the service billed, counted at the service: never past the run's cap.
      expect(sim.ledger().cents).toBeLessThanOrEqual(maxCents);
      expect(sim.ledger().cents).toBeGreaterThan(maxCents / 2);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  });

  it('resumes after Redis lost its data mid-run: calls repeated stay within the jobs in flight, the ledger is exact', async () => {
    const catalogue = { fragrances: 60, seed: 42 };
    const concurrency = 4;
    const clean = await cleanRunCalls(
      () => startSimulator({ ...catalogue, recordPaid: true }),
      files.path('flush-clean.duckdb'),
      files.config,
    );
    const prefix = uniquePrefix('gov-flush');
    const redis = await losableRedis(inject('redisUrl'), inject('redisOwned'), prefix);
    const redisUrl = redis.url;
    const sim = await startSimulator({ ...catalogue, recordPaid: true });
    let flushedAt: number | null = null;
    const poll = setInterval(() => {
      if (flushedAt !== null || sim.ledger().calls < clean.calls / 3) return;
      flushedAt = sim.ledger().calls;
      void redis.loseData();
    }, 2);
    try {
      const dbPath = files.path('flush.duckdb');
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: {
          redis: redisUrl,
          'queue-prefix': prefix,
          config: files.config,
          concurrency: String(concurrency),
        },
      });
      clearInterval(poll);
      expect(summary.status).toBe('completed');
      expect(flushedAt).not.toBeNull();
      await expectMirror(sim, dbPath);
      // One interruption: at most the jobs in flight (their outcomes lost with the load
      // queue) are paid again, bounded by the calls of the largest jobs the process runs at
      // once (jobConcurrency under these flags; repeatBound), and nothing left unbought.
      const flags = { redis: redisUrl, config: files.config, concurrency: String(concurrency) };
      expectRepeatsWithin(sim, clean, repeatBound(sim, jobsPerProcess(flags)), `flushed at ${flushedAt}`);
      // Outcomes waiting in the flushed load queue are gone with the flush, their ledger rows
      // are not: the worker's spool reports them again, and the ledger is exact.
      await expectLedgerEqual(sim, dbPath);
    } finally {
      clearInterval(poll);
      await sim.close();
      await redis.close();
    }
  });

  it('keeps the ledger exact when Redis loses reports the owner had not taken yet', async () => {
    const catalogue = { fragrances: 40, seed: 43 };
    const prefix = uniquePrefix('gov-lost-reports');
    const redis = await losableRedis(inject('redisUrl'), inject('redisOwned'), prefix);
    const redisUrl = redis.url;
    const sim = await startSimulator(catalogue);
    // The owner takes reports within milliseconds, so a flush rarely finds one waiting: hold
    // the load queue until some wait in it, then flush them away with everything else.
    const loadQueue = new Queue('load', { connection: redis.admin, prefix });
    let lost = -1;
    const hold = (async () => {
      while (sim.ledger().calls < 30) await sleep(2);
      await loadQueue.pause();
      for (;;) {
        const c = await loadQueue.getJobCounts('wait', 'waiting');
        const waiting = Object.values(c).reduce((a, b) => a + b, 0);
        if (waiting >= 3) {
          lost = waiting;
          break;
        }
        await sleep(2);
      }
      await redis.loseData();
    })();
    try {
      const dbPath = files.path('lost-reports.duckdb');
      const logs = new LogWatch();
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: { redis: redisUrl, 'queue-prefix': prefix, config: files.config, concurrency: '4' },
      });
      await hold;
      expect(summary.status).toBe('completed');
      expect(lost).toBeGreaterThanOrEqual(3);
      await expectMirror(sim, dbPath);
      // The spool sent its reports again (said once at warn level, by whichever part of the
      // process saw the loss first; src/queue/redis-loss.ts): the lost ones among them, whole.
      const again = logs
        .map((l) => JSON.parse(l) as { msg?: string; outcomes?: number })
        .filter((e) => e.msg?.includes('reports sent again'));
      expect(again.length).toBeGreaterThanOrEqual(1);
      expect(again[0]?.outcomes).toBeGreaterThanOrEqual(lost);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await hold.catch(() => undefined);
      await loadQueue.close();
      await sim.close();
      await redis.close();
    }
  });
});
