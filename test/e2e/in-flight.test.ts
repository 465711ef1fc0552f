import { describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { expectLedgerEqual, expectMirror, governedFiles } from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * Latency is hidden by keeping the configured number of requests in flight, no more and no
 * fewer, counted at the service: with 50 ms added to every answer, a sync at concurrency N
 * has N requests at the service at once. Requests are not pipelined, so this needs as many
 * connections as requests in flight (http.connections follows http.concurrency): with 16
 * connections the service never sees more than 16. How much of the run the service spends at
 * N is the benchmark's figure (bench:scale at 20 ms), not a test's: it falls with the
 * machine's load (a share of 5 ms samples at N, 0.086 with BullMQ at a load average of 25).
 */

const CONCURRENCY = 24;
const LATENCY_MS = 50;
const files = governedFiles();

describe.each([
  { driver: 'in-process', redis: false },
  { driver: 'BullMQ', redis: true },
])('requests in flight, $driver driver', ({ redis }) => {
  it(`keeps ${CONCURRENCY} requests at a service that answers in ${LATENCY_MS} ms, never more`, async () => {
    const sim = await startSimulator({ fragrances: 120, seed: 71 });
    sim.setFaults({ latencyMs: LATENCY_MS });
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('in-flight');
    const dbPath = files.path(`in-flight-${redis ? 'bullmq' : 'memory'}.duckdb`);
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: {
          config: files.config,
          concurrency: String(CONCURRENCY),
          ...(redis ? { redis: redisUrl, 'queue-prefix': prefix } : {}),
        },
      });
      expect(summary.status).toBe('completed');
      expect(sim.inFlight().peak).toBe(CONCURRENCY);
      // The sync's own figure of the same (api/occupancy.ts), for the benchmark: requests on
      // the wire over the fetch, and every idle slot-time with its reason.
      const f = summary.inFlight!;
      expect(f.concurrency).toBe(CONCURRENCY);
      // Every request the service saw was on the wire 50 ms or more (a timer may fire up to
      // a millisecond early): the sync counted all of them, for all that time.
      expect(f.meanInFlight * f.wallMs).toBeGreaterThanOrEqual(sim.ledger().calls * (LATENCY_MS - 1));
      expect(f.meanInFlight).toBeLessThanOrEqual(CONCURRENCY);
      expect(f.occupancy + Object.values(f.idle).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
      if (redis) await cleanPrefix(redisUrl, prefix);
    }
  });
});
