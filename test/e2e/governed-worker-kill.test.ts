import { beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  cleanRunCalls,
  expectLedgerWithin,
  expectMirror,
  governedFiles,
  lockConfig,
  queryWarehouse,
  repeatBound,
} from '../helpers/governed.ts';
import { expectRepeatsWithin, jobsPerProcess } from '../helpers/repeats.ts';
import { spawnSync } from '../helpers/sync-process.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, spoolBytes, startWorker, type WorkerProc } from '../helpers/worker-process.ts';

/**
 * BullMQ mode: a `fragsync worker` process SIGKILLed at random points while the sync runs,
 * each time replaced by a new one on the same host. A killed worker's jobs are taken over
 * once their lock lapses (queue.lockMs), so only they are paid again; and the calls it made,
 * answered or still on the wire, reach the ledger from its spool (src/queue/spool.ts), which
 * the next worker on the host (or the sync before it closes the ledger) reports.
 */

const CATALOGUE = { fragrances: 80, seed: 61 };
const CONCURRENCY = 4;
const KILLS = 2;
const LOCK_MS = 2000;
/** The service's answer time while the run is killed, and while a killed worker's successor starts. */
const LATENCY_MS = 50;
const SLOW_MS = 1000;

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What one uninterrupted sync of CATALOGUE pays, and a config with short job locks. */
let clean: { calls: number; cents: number; paid: string[] };
let config: string;
/** Jobs in flight per process, the sync's or a worker's (both BullMQ, same flags). */
let jobs: number;
beforeAll(async () => {
  clean = await cleanRunCalls(
    () => startSimulator({ ...CATALOGUE, recordPaid: true }),
    files.path('clean.duckdb'),
    files.config,
  );
  config = await lockConfig(files.path('lock.json'), LOCK_MS);
  jobs = jobsPerProcess({ config, concurrency: String(CONCURRENCY), redis: inject('redisUrl') });
});

describe('governed sync: killed worker processes', () => {
  it('SIGKILLed workers: an exact mirror, every call in the ledger, and only their jobs paid again', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('gov-worker-kill');
    const args = ['--config', config, '--concurrency', String(CONCURRENCY)];
    const workers: WorkerProc[] = await Promise.all([
      startWorker(redisUrl, prefix, args),
      startWorker(redisUrl, prefix, args),
    ]);
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    // 50 ms answers: the run lasts seconds, and a killed worker always has requests on the wire.
    sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      const dbPath = files.path('worker-kill.duckdb');
      let finished = false;
      const run = runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { redis: redisUrl, 'queue-prefix': prefix, config, concurrency: String(CONCURRENCY) },
      }).finally(() => (finished = true));
      const delays: number[] = [];
      for (let k = 0; k < KILLS; k++) {
        const victim = workers[0]!;
        // Once the victim is sending (its spool grows beyond what it took over at start), kill
        // it in the next 300 ms; not before the service's first answers: a process killed
        // holding the probe of an unknown quota window blocks every other for the ticket TTL.
        const base = spoolBytes(prefix, victim.child.pid!);
        while ((spoolBytes(prefix, victim.child.pid!) <= base || sim.ledger().calls < 5) && !finished)
          await sleep(5);
        sim.setFaults({ latencyMs: LATENCY_MS });
        const delayMs = Math.floor(Math.random() * 300);
        delays.push(delayMs);
        await sleep(delayMs);
        expect(finished, `kill ${k + 1} came after the run ended`).toBe(false);
        const exited = new Promise((r) => victim.child.once('exit', r));
        victim.child.kill('SIGKILL');
        await exited;
        // A worker restarted on the same host takes over the dead one's spool. Starting a
        // process takes seconds on a loaded machine, in which the other two could finish the
        // run before the next kill (the CI saw 'kill 2 came after the run ended'): answers are
        // slow until the new worker is sending, so work is left for it whatever the load.
        if (k + 1 < KILLS) sim.setFaults({ latencyMs: SLOW_MS });
        workers[0] = await startWorker(redisUrl, prefix, args);
      }
      const summary = await run;
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));

      await expectMirror(sim, dbPath);
      // Every call reaches the ledger; a request a killed worker had journaled and not yet
      // written to its socket may be one the service never read (expectLedgerWithin).
      await expectLedgerWithin(sim, dbPath, KILLS * CONCURRENCY);
      // Per kill, at most the jobs the worker had: the `jobs` largest ones.
      expectRepeatsWithin(sim, clean, KILLS * repeatBound(sim, jobs), `delays ${delays.join(',')} ms`);
      // The killed workers were sending: requests they had on the wire are calls without an answer.
      const [unanswered] = await queryWarehouse<{ n: number }>(
        dbPath,
        'SELECT count(*)::INTEGER AS n FROM api_calls WHERE status = 0',
      );
      expect(Number(unanswered?.n)).toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  }, 180_000);

  it('the sync process itself SIGKILLed in BullMQ mode (it fetches too): the next runs replay its journal and its spool', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('gov-owner-kill');
    const sim = await startSimulator({ ...CATALOGUE, recordPaid: true });
    sim.setFaults({ latencyMs: LATENCY_MS });
    const dbPath = files.path('owner-kill.duckdb');
    const opts = { config, concurrency: CONCURRENCY, redis: { url: redisUrl, prefix } };
    try {
      const delays: number[] = [];
      for (let k = 0; k < KILLS; k++) {
        const before = sim.ledger().calls;
        const proc = spawnSync(sim, dbPath, opts);
        while (sim.ledger().calls < before + 5) await sleep(5);
        const delayMs = Math.floor(Math.random() * 300);
        delays.push(delayMs);
        await sleep(delayMs);
        proc.kill();
        const end = await proc.exited;
        expect(end.signal, `run ${k + 1} ended before its kill: ${end.output}`).toBe('SIGKILL');
      }
      const end = await spawnSync(sim, dbPath, opts).exited;
      expect(end.code, end.output).toBe(EXIT.ok);

      await expectMirror(sim, dbPath);
      // The killed sync sent too: see expectLedgerWithin for the requests cut off as they left.
      await expectLedgerWithin(sim, dbPath, KILLS * CONCURRENCY);
      const runs = await queryWarehouse<{ status: string }>(
        dbPath,
        'SELECT status FROM sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual([...Array(KILLS).fill('died'), 'completed']);
      expectRepeatsWithin(sim, clean, KILLS * repeatBound(sim, jobs), `delays ${delays.join(',')} ms`);
    } finally {
      await sim.close();
      await cleanPrefix(redisUrl, prefix);
    }
  }, 180_000);
});
