import { writeFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { callsWithStatus, governedFiles, LogWatch, TEST_JITTER_MS, waitFor } from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * A balance spent during a quota pause stops the run then, not at the reset: the sync pauses
 * at the reserve (the service still has RESERVE calls left, hours before its reset), the
 * balance is emptied, and the next recheck is answered 402. No job runs in a pause to report
 * the stop; before, the recheck logged "still paused" and every later one was refused by the
 * halted run, until the reset (6 real hours here) resumed the jobs only for them to stop.
 */

const files = governedFiles();
const RECHECK_MS = 300;
const RESERVE = 5;

describe.each(['memory', 'bullmq'] as const)('a 402 found by a quota recheck (%s driver)', (driver) => {
  it('ends the run payment_required at that recheck, before the reset', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 31, dailyQuota: 120, daySeconds: 6 * 3600 });
    const config = files.path(`recheck-halt-${driver}.json`);
    const quota = { resumeJitterMs: TEST_JITTER_MS, recheckMs: RECHECK_MS, reserveCalls: RESERVE };
    await writeFile(config, JSON.stringify({ quota }));
    const logs = new LogWatch();
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix(`recheck-halt-${driver}`);
    const flags: Record<string, string> = { config, concurrency: '4' };
    if (driver === 'bullmq') Object.assign(flags, { redis: redisUrl, 'queue-prefix': prefix });
    let drainedAt = 0;
    const owner = (async () => {
      await waitFor('the pause', () => logs.pauses.length > 0);
      sim.topUp(-sim.clock().balanceCents);
      drainedAt = Date.now();
    })();
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath: files.path(`rh-${driver}.duckdb`),
        logLines: logs,
        flags,
      });
      await owner;
      expect(summary.status).toBe('payment_required');
      // The first recheck after the drain: one interval, not the reset hours away.
      expect(Date.now() - drainedAt).toBeLessThan(10 * RECHECK_MS + 5_000);
      expect(sim.clock().serviceDate).toBe('2026-01-01');
      // Nothing was sent after the recheck's 402, and the quota's reserve was left alone.
      expect(callsWithStatus(sim, 402)).toBe(1);
      expect(sim.clock().remaining).toBe(RESERVE);
    } finally {
      if (driver === 'bullmq') await cleanPrefix(redisUrl, prefix);
      await sim.close();
    }
  }, 60_000);
});
