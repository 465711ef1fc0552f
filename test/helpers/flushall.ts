import { writeFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { startSimulator, type SimulatorOptions } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  repeatBound,
  TEST_JITTER_MS,
} from './governed.ts';
import { startRedisServer } from './redis-server.ts';
import { expectRepeatsWithin, jobsPerProcess } from './repeats.ts';
import { runTestSync } from './sync.ts';
import { uniquePrefix } from './tmp.ts';
import { startWorkers } from './worker-process.ts';

/**
 * Redis loses all its data (FLUSHALL, on a redis-server started here) in the middle of a run
 * served by the sync and two worker processes, once per share of a clean run's calls in
 * `flushAt`, against the simulator with added latency. Asserts an exact mirror, api_calls =
 * the service's ledger, paid calls repeated within what the design bounds them by (the
 * calls of the jobs in flight at the flushes: a job still in hand when the queue is rebuilt
 * may run twice), and that the sync's log said so in one warning line per flush at most (at
 * least one), each worker's too. Prints the repeats (which requests, against the clean run's
 * billed requests) beside the requests the service had in flight at each flush.
 */
export async function flushallScenario(o: {
  catalogue: SimulatorOptions;
  latencyMs: number;
  concurrency: number;
  flushAt: number[];
  path(name: string): string;
  config: string;
  label: string;
}): Promise<void> {
  const processes = 3;
  const clean = await cleanRunCalls(
    () => startSimulator({ ...o.catalogue, recordPaid: true }),
    o.path('flushall-clean.duckdb'),
    o.config,
  );
  const server = await startRedisServer();
  const admin = new Redis(server.url);
  const prefix = uniquePrefix('flushall');
  const config = o.path('flush.json');
  await writeFile(
    config,
    JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS }, queue: { leaseMs: 2000 } }),
  );
  const args = ['--config', config, '--concurrency', String(o.concurrency)];
  // Per process, the sync's and each worker's: the same flags, so the same jobConcurrency.
  const jobs = jobsPerProcess({ config, concurrency: String(o.concurrency), redis: server.url });
  const workers = await startWorkers(2, server.url, prefix, args);
  const sim = await startSimulator({ ...o.catalogue, recordPaid: true });
  sim.setFaults({ latencyMs: o.latencyMs });
  try {
    const dbPath = o.path('flush.duckdb');
    const logs: string[] = [];
    const flushedAt: number[] = [];
    const inFlight: number[] = [];
    const flushes = (async () => {
      for (const share of o.flushAt) {
        while (sim.ledger().calls < clean.calls * share) await new Promise((r) => setTimeout(r, 5));
        flushedAt.push(sim.ledger().calls);
        inFlight.push(sim.inFlight().now);
        await admin.flushall();
      }
    })();
    const summary = await runTestSync({
      baseUrl: sim.url,
      dbPath,
      logLines: logs,
      flags: { redis: server.url, 'queue-prefix': prefix, config, concurrency: String(o.concurrency) },
    });
    await flushes;
    expect(summary.status).toBe('completed');
    await Promise.all(workers.map((w) => w.stop()));
    await expectMirror(sim, dbPath);
    await expectLedgerEqual(sim, dbPath);
    const dup = callsWithStatus(sim, 200) - clean.calls;
    const bound = o.flushAt.length * repeatBound(sim, processes * jobs);
    // Nothing the clean run bought left unbought, the repeats within the jobs in flight.
    const again = expectRepeatsWithin(sim, clean, bound, o.label);
    const wire = inFlight.reduce((a, b) => a + b, 0);
    const loud = logs
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((e) => e.level >= 40)
      .map((e) => e.msg);
    console.log(
      `[${o.label}] FLUSHALL x${o.flushAt.length} at calls ${flushedAt.join(', ')}: paid calls repeated ${dup} (billed more often than in the clean run: ${again.dup}: ${again.kinds || 'none'}); requests in flight at the flushes ${inFlight.join(' + ')} = ${wire} (≤ ${processes * o.concurrency} each); jobs in flight ≤ ${processes * jobs} each (all flushes: their calls ≤ ${bound}); api_calls = ledger; the sync's warnings and errors: ${JSON.stringify(loud)}`,
    );
    expect(flushedAt).toHaveLength(o.flushAt.length);
    expect(loud.length).toBeGreaterThanOrEqual(1);
    expect(loud.length).toBeLessThanOrEqual(o.flushAt.length);
    for (const w of workers) {
      const lines = w.output
        .join('')
        .split('\n')
        .filter((l) => /"level":(40|50)/.test(l));
      expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(o.flushAt.length);
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await sim.close();
    admin.disconnect();
    await server.stop();
  }
}
