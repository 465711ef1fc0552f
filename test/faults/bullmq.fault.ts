import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  lockConfig,
  paidAgain,
  paidByKind,
  repeatBound,
} from '../helpers/governed.ts';
import { flushallScenario } from '../helpers/flushall.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { spawnSync } from '../helpers/sync-process.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, spoolBytes, startWorker, startWorkers } from '../helpers/worker-process.ts';

/**
 * BullMQ faults (issue 14 item 10), against the simulator with 40 ms answers so that a run
 * lasts long enough to be hit several times. Each scenario ends with an exact mirror, the
 * warehouse's api_calls equal to the service's ledger, and prints the paid calls repeated
 * against what was in flight at the faults.
 */

const CATALOGUE = { fragrances: 600, seed: 1414 };
const LATENCY_MS = 40;
const CONCURRENCY = 3;
const LOCK_MS = 2000;
const LEASE_MS = 1000;
/** The sync and two worker processes. */
const PROCESSES = 3;

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Prints a scenario's repeats beside its bound and holds them to it, and to the floor that
 * nothing the clean run bought was left unbought (expectRepeatsWithin).
 */
function expectRepeats(report: string, sim: Simulator, bound: number): void {
  console.log(`[faults] ${report}`);
  expectRepeatsWithin(sim, clean, bound, report);
}

/** Stops the scenario's workers and service and removes its queue keys. */
async function teardown(
  workers: { stop(): Promise<unknown> }[],
  sim: { close(): Promise<unknown> },
  redisUrl: string,
  prefix: string,
) {
  await Promise.all(workers.map((w) => w.stop()));
  await sim.close();
  await cleanPrefix(redisUrl, prefix);
}

let clean: { calls: number; cents: number; paid: string[] };
let config: string;
/** Jobs in flight per process, the sync's or a worker's: jobConcurrency under the same flags. */
let jobs: number;
beforeAll(async () => {
  clean = await cleanRunCalls(
    () => startSimulator({ ...CATALOGUE, recordPaid: true }),
    files.path('clean.duckdb'),
    files.config,
  );
  config = await lockConfig(files.path('faults.json'), LOCK_MS, { leaseMs: LEASE_MS });
  jobs = jobsPerProcess({ config, concurrency: String(CONCURRENCY), redis: inject('redisUrl') });
});

describe('faults: BullMQ', () => {
  it('a worker SIGKILLed at 10 random points: exact, api_calls = ledger, repeats within the jobs in flight', async () => {
    const KILLS = 10;
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('fault-worker-kill');
    const args = ['--config', config, '--concurrency', String(CONCURRENCY)];
    const workers = await startWorkers(2, redisUrl, prefix, args);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      const dbPath = files.path('worker-kill.duckdb');
      let finished = false;
      const run = runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { redis: redisUrl, 'queue-prefix': prefix, config, concurrency: String(CONCURRENCY) },
      }).finally(() => (finished = true));
      let kills = 0;
      for (let k = 0; k < KILLS && !finished; k++) {
        // Alternate the victims, so one worker always keeps the run going meanwhile.
        const i = k % workers.length;
        const victim = workers[i]!;
        const base = spoolBytes(prefix, victim.child.pid!);
        while ((spoolBytes(prefix, victim.child.pid!) <= base || sim.ledger().calls < 5) && !finished)
          await sleep(5);
        await sleep(Math.floor(Math.random() * 300));
        if (finished) break;
        const exited = new Promise((r) => victim.child.once('exit', r));
        victim.child.kill('SIGKILL');
        await exited;
        kills++;
        workers[i] = await startWorker(redisUrl, prefix, args);
      }
      const summary = await run;
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));

      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const dup = callsWithStatus(sim, 200) - clean.calls;
      const bound = kills * repeatBound(sim, jobs);
      expectRepeats(
        `worker kill x${kills}: paid calls repeated ${dup} (${paidByKind(paidAgain(clean.paid, sim.paidRequests()))}), jobs in flight at the kills ≤ ${kills * jobs} (their calls ≤ ${bound}); api_calls = ledger`,
        sim,
        bound,
      );
      // Most of the kills landed while the run had work left.
      expect(kills).toBeGreaterThanOrEqual(KILLS / 2);
    } finally {
      await teardown(workers, sim, redisUrl, prefix);
    }
  });

  it('the sync SIGKILLed at 10 random points with two workers: each dead run costs its calls in flight and at most one lease; the last sync is exact, api_calls = ledger', async () => {
    const KILLS = 10;
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('fault-sync-kill');
    const args = ['--config', config, '--concurrency', String(CONCURRENCY)];
    const workers = await startWorkers(2, redisUrl, prefix, args);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    sim.setFaults({ latencyMs: LATENCY_MS });
    const dbPath = files.path('sync-kill.duckdb');
    const opts = { config, concurrency: CONCURRENCY, redis: { url: redisUrl, prefix } };
    const inFlight = PROCESSES * CONCURRENCY;
    try {
      const lines: string[] = [];
      const sum = { after: 0, inLease: 0, wire: 0 };
      for (let k = 0; k < KILLS; k++) {
        const before = sim.ledger().calls;
        const proc = spawnSync(sim, dbPath, opts);
        while (sim.ledger().calls < before + 5) await sleep(5);
        await sleep(Math.floor(Math.random() * 1000));
        proc.kill();
        const atKill = sim.ledger().calls;
        const wire = sim.inFlight().now;
        let inLease = -1;
        const leaseOver = setTimeout(() => (inLease = sim.ledger().calls - atKill), LEASE_MS);
        const end = await proc.exited;
        expect(end.signal, `run ${k + 1} ended before its kill: ${end.output}`).toBe('SIGKILL');
        // Until the service hears nothing for two leases.
        let last = atKill;
        let quietSince = Date.now();
        while (Date.now() - quietSince < 2 * LEASE_MS || inLease < 0) {
          await sleep(50);
          const now = sim.ledger().calls;
          if (now !== last) [last, quietSince] = [now, Date.now()];
        }
        clearTimeout(leaseOver);
        const after = sim.ledger().calls - atKill;
        lines.push(`${after} (${inLease} within the lease, ${wire} on the wire)`);
        sum.after += after;
        sum.inLease += inLease;
        sum.wire += wire;
        // Past one lease, nothing but requests that were on the wire.
        expect(after - inLease, lines.at(-1)).toBeLessThanOrEqual(inFlight);
      }
      const end = await spawnSync(sim, dbPath, opts).exited;
      expect(end.code, end.output).toBe(0);
      await Promise.all(workers.map((w) => w.stop()));
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const dup = callsWithStatus(sim, 200) - clean.calls;
      // The done-when's bound: the requests on the wire at each kill plus the calls of one
      // lease after it. The dead run's results left in the load queue are loaded before the
      // next sync plans (takeover.ts, earlierReports): what is bought again is the work of the
      // jobs the lapsed lease halted and of the dead sync's own jobs in hand, their calls on
      // the wire or within the lease, and the pages a multi-page one bought before the kill.
      // Those pages are not within the two figures by design; they are a few against the
      // lease's calls whose results are loaded (docs/benchmarks.md, Faults: 83-183 of 633-887).
      const bound = sum.inLease + sum.wire;
      expectRepeats(
        `sync kill x${KILLS} (lease ${LEASE_MS} ms): calls after each kill ${lines.join(', ')}; after all kills ${sum.after} (${sum.inLease} within one lease, ${sum.wire} requests on the wire, ≤ ${inFlight} each); paid calls repeated over all ${dup} (${paidByKind(paidAgain(clean.paid, sim.paidRequests()))}) ≤ ${bound} (within one lease + on the wire); api_calls = ledger`,
        sim,
        bound,
      );
    } finally {
      await teardown(workers, sim, redisUrl, prefix);
    }
  });

  it('Redis FLUSHALLed three times in one run (a redis-server of its own): exact, api_calls = ledger, repeats within the jobs in flight, one warning per loss at most', async () => {
    await flushallScenario({
      catalogue: CATALOGUE,
      latencyMs: LATENCY_MS,
      concurrency: CONCURRENCY,
      flushAt: [0.2, 0.45, 0.7],
      path: files.path,
      config: files.config,
      label: 'faults',
    });
  });
});
