import { writeFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  queryWarehouse,
  repeatBound,
  TEST_JITTER_MS,
} from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorker, type WorkerProc } from '../helpers/worker-process.ts';

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

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('governed sync: killed worker processes', () => {
  it('SIGKILLed workers: an exact mirror, an exact ledger, and only their jobs paid again', async () => {
    const clean = await cleanRunCalls(
      () => startSimulator(CATALOGUE),
      files.path('clean.duckdb'),
      files.config,
    );
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('gov-worker-kill');
    const config = files.path('lock.json');
    await writeFile(
      config,
      JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, queue: { lockMs: LOCK_MS } }),
    );
    const args = ['--config', config, '--concurrency', String(CONCURRENCY)];
    const workers: WorkerProc[] = await Promise.all([
      startWorker(redisUrl, prefix, args),
      startWorker(redisUrl, prefix, args),
    ]);
    const sim = await startSimulator(CATALOGUE);
    // 50 ms answers: the run lasts seconds, and a killed worker always has requests on the wire.
    sim.setFaults({ latencyMs: 50 });
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
        const before = sim.ledger().calls;
        while (sim.ledger().calls < before + 5 && !finished) await sleep(5);
        const delayMs = Math.floor(Math.random() * 300);
        delays.push(delayMs);
        await sleep(delayMs);
        expect(finished, `kill ${k + 1} came after the run ended`).toBe(false);
        const victim = workers[0]!;
        const exited = new Promise((r) => victim.child.once('exit', r));
        victim.child.kill('SIGKILL');
        await exited;
        // A worker restarted on the same host takes over the dead one's spool.
        workers[0] = await startWorker(redisUrl, prefix, args);
      }
      const summary = await run;
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));

      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      // Per kill, at most the jobs the worker had: the CONCURRENCY largest ones.
      const dup = callsWithStatus(sim, 200) - clean.calls;
      expect(dup, `delays ${delays.join(',')} ms`).toBeGreaterThanOrEqual(0);
      expect(dup, `delays ${delays.join(',')} ms`).toBeLessThanOrEqual(KILLS * repeatBound(sim, CONCURRENCY));
      // The killed workers had requests on the wire: they are in the ledger as calls without an answer.
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
  });
});
