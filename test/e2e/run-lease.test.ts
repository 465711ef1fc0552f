import { writeFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { FETCH_QUEUE, LOAD_QUEUE } from '../../src/queue/fetch-worker.ts';
import type { JobOutcome } from '../../src/queue/types.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { expectLedgerWithin, expectMirror, governedFiles, TEST_JITTER_MS } from '../helpers/governed.ts';
import { spawnSync } from '../helpers/sync-process.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorkers } from '../helpers/worker-process.ts';

/**
 * BullMQ mode, the run lease (src/queue/lease.ts): the sync process SIGKILLed mid-run while
 * two worker processes serve its queue. Once its lease lapses (it renews it every third of
 * queue.leaseMs) the workers abort the jobs in hand and take no more, so the calls paid after
 * the kill are at most those on the wire plus one lease of the run's throughput (the service
 * hears no more than the requests in flight once a lease has passed), not its whole queue. The next sync cancels the dead run's queue and says so in one line, and ends
 * exact with api_calls equal to the service's ledger (what the workers fetched for the dead
 * run and spooled included), with job locks of the default length: reports the dead sync was
 * loading are taken over at once, not when their lock lapses. What the workers fetched for the
 * dead run and left in the load queue is loaded before the next sync plans: it does not buy
 * those profiles again.
 */

const CATALOGUE = { fragrances: 600, seed: 1401 };
const LATENCY_MS = 40;
/** Requests in flight per process (http.concurrency). */
const CONCURRENCY = 3;
const PROCESSES = 3; // the sync (it fetches too) and two workers
const LEASE_MS = 1000;
/** Jobs waiting at the kill: far more than one lease of throughput. */
const QUEUED = 400;

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('run lease', () => {
  it('a SIGKILLed sync stops costing within one lease; the next sync cancels its queue and ends exact', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('lease');
    const config = files.path('lease.json');
    await writeFile(
      config,
      JSON.stringify({
        quota: { resumeJitterMs: TEST_JITTER_MS },
        queue: { leaseMs: LEASE_MS },
      }),
    );
    const args = ['--config', config, '--concurrency', String(CONCURRENCY)];
    const workers = await startWorkers(2, redisUrl, prefix, args);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    sim.setFaults({ latencyMs: LATENCY_MS });
    const dbPath = files.path('lease.duckdb');
    const opts = { config, concurrency: CONCURRENCY, redis: { url: redisUrl, prefix } };
    const fetchQueue = new Queue(FETCH_QUEUE, { connection: { url: redisUrl }, prefix });
    const loadQueue = new Queue(LOAD_QUEUE, { connection: { url: redisUrl }, prefix });
    try {
      const proc = spawnSync(sim, dbPath, opts);
      // Well into the run, with many jobs queued (without the lease, the workers would go on
      // through all of them).
      const samples: { at: number; calls: number }[] = [];
      let queued = 0;
      while (sim.ledger().calls < 300 || queued < QUEUED) {
        samples.push({ at: Date.now(), calls: sim.ledger().calls });
        const c = await fetchQueue.getJobCounts('waiting', 'prioritized');
        queued = (c.waiting ?? 0) + (c.prioritized ?? 0);
        await sleep(10);
      }
      // The run's throughput: its most calls in one lease before the kill (a busy machine's
      // rate varies; the workers speed up once the killed sync no longer takes a core).
      samples.push({ at: Date.now(), calls: sim.ledger().calls });
      let throughput = 0;
      for (let i = 0, j = 0; i < samples.length; i++) {
        while (samples[i]!.at - samples[j]!.at > LEASE_MS) j++;
        const span = samples[i]!.at - samples[j]!.at;
        if (span >= LEASE_MS / 2)
          throughput = Math.max(throughput, ((samples[i]!.calls - samples[j]!.calls) * 1000) / span);
      }
      proc.kill();
      const atKill = sim.ledger().calls;
      // What the service heard in the lease after the kill (read once the lease is over: a
      // late reading only counts more calls in it).
      let inLease = -1;
      const leaseOver = setTimeout(() => (inLease = sim.ledger().calls - atKill), LEASE_MS);
      const end = await proc.exited;
      expect(end.signal, end.output).toBe('SIGKILL');
      // Then until the service hears nothing more for two leases.
      let last = atKill;
      let quietSince = Date.now();
      const deadline = Date.now() + 120_000;
      while ((Date.now() - quietSince < 2 * LEASE_MS || inLease < 0) && Date.now() < deadline) {
        await sleep(50);
        const now = sim.ledger().calls;
        if (now !== last) [last, quietSince] = [now, Date.now()];
      }
      const quietMs = Date.now() - quietSince;
      clearTimeout(leaseOver);
      const afterKill = sim.ledger().calls - atKill;
      const inFlight = PROCESSES * CONCURRENCY;
      console.log(
        `[lease] calls paid after the kill: ${afterKill} (${inLease} within one lease of ${LEASE_MS} ms, ${afterKill - inLease} later); in flight at the kill ≤ ${inFlight}; the run's peak before it ${throughput.toFixed(0)} calls/s; ${QUEUED}+ jobs were queued`,
      );
      // Within one lease the workers stopped: later, at most requests that were on the wire.
      // The loop ended because the service went quiet for two leases, not at the deadline with
      // the workers still paying (the count below would then be a count so far, not a total).
      expect(quietMs, 'the service did not go quiet for two leases within 120 s').toBeGreaterThanOrEqual(
        2 * LEASE_MS,
      );
      expect(afterKill - inLease).toBeLessThanOrEqual(inFlight);
      // And the lease is what stopped them: the queue held far more.
      expect(afterKill).toBeLessThan(QUEUED / 2);

      // The dead run's results nobody loaded: the profiles among them are paid once.
      const left = (await loadQueue.getJobs(['waiting', 'active', 'delayed'])).map(
        (j) => j.data as JobOutcome,
      );
      const profiles = left.flatMap((o) =>
        o.type === 'done' && o.job.spec.kind === 'fragranceProfile'
          ? [`GET /v1/fragrances/${(o.job.spec.payload as { id: string }).id}`]
          : [],
      );
      const paidBefore = sim.paidRequests();

      const next = await spawnSync(sim, dbPath, opts).exited;
      expect(next.code, next.output).toBe(EXIT.ok);
      const paidAfter = sim.paidRequests();
      const times = (paid: string[], r: string) => paid.filter((p) => p === r).length;
      console.log(
        `[lease] reports left in the load queue: ${left.length}, ${profiles.length} of them profiles`,
      );
      for (const r of profiles) expect(times(paidAfter, r), r).toBe(times(paidBefore, r));
      const cancelled = next.output.split('\n').filter((l) => l.includes('its queue is cancelled'));
      expect(cancelled).toHaveLength(1);
      await Promise.all(workers.map((w) => w.stop()));
      await expectMirror(sim, dbPath);
      // The killed sync sent too: a request it journaled at the instant of the kill may never
      // have been read by the service (expectLedgerWithin).
      await expectLedgerWithin(sim, dbPath, inFlight);
    } finally {
      await fetchQueue.close();
      await loadQueue.close();
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  }, 300_000);
});
