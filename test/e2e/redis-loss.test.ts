import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  repeatBound,
  TEST_JITTER_MS,
} from '../helpers/governed.ts';
import { startRedisServer } from '../helpers/redis-server.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { startWorkers } from '../helpers/worker-process.ts';
import { Redis } from 'ioredis';

/**
 * BullMQ mode, Redis loses all its data (FLUSHALL, on a redis-server this test starts) in
 * the middle of a run served by the sync and two worker processes. The run is rebuilt from
 * what the sync holds (the jobs it still owes; everything already received is journaled), so
 * only the jobs in flight at the flush are paid again; the ledger is exact; and the sync's log
 * says so in one warning line, not an error per job.
 */

const CATALOGUE = { fragrances: 300, seed: 1403 };
const LATENCY_MS = 40;
const CONCURRENCY = 3;
const PROCESSES = 3;
/** Jobs in flight per process: twice the requests (queue.concurrency's default). */
const JOBS = 2 * CONCURRENCY;

const files = governedFiles();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis loses its data mid-run', () => {
  it('FLUSHALL: exact, api_calls = ledger, repeats within the jobs in flight, one warning line', async () => {
    const clean = await cleanRunCalls(
      () => startSimulator(CATALOGUE),
      files.path('clean.duckdb'),
      files.config,
    );
    const server = await startRedisServer();
    const admin = new Redis(server.url);
    const prefix = uniquePrefix('flushall');
    const config = files.path('flush.json');
    await writeFile(
      config,
      JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, queue: { leaseMs: 2000 } }),
    );
    const workers = await startWorkers(2, server.url, prefix, [
      '--config',
      config,
      '--concurrency',
      String(CONCURRENCY),
    ]);
    const sim = await startSimulator(CATALOGUE);
    sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      const dbPath = files.path('flush.duckdb');
      const logs: string[] = [];
      let flushedAt = -1;
      const flush = (async () => {
        while (sim.ledger().calls < clean.calls / 3) await sleep(5);
        flushedAt = sim.ledger().calls;
        await admin.flushall();
      })();
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: { redis: server.url, 'queue-prefix': prefix, config, concurrency: String(CONCURRENCY) },
      });
      await flush;
      expect(summary.status).toBe('completed');
      await Promise.all(workers.map((w) => w.stop()));
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const dup = callsWithStatus(sim, 200) - clean.calls;
      const bound = repeatBound(sim, PROCESSES * JOBS);
      const loud = logs
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((e) => e.level >= 40)
        .map((e) => e.msg);
      console.log(
        `[redis-loss] FLUSHALL at call ${flushedAt}: paid calls repeated ${dup}; in flight at the flush ≤ ${PROCESSES * CONCURRENCY} requests, ${PROCESSES * JOBS} jobs (their calls ≤ ${bound}); warnings and errors: ${JSON.stringify(loud)}`,
      );
      expect(flushedAt).toBeGreaterThan(0);
      expect(dup).toBeGreaterThanOrEqual(0);
      expect(dup).toBeLessThanOrEqual(bound);
      expect(loud).toHaveLength(1);
      for (const w of workers) {
        const lines = w.output
          .join('')
          .split('\n')
          .filter((l) => /"level":(40|50)/.test(l));
        expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(1);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await sim.close();
      admin.disconnect();
      await server.stop();
    }
  }, 300_000);
});
