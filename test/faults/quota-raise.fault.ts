import { writeFile } from 'node:fs/promises';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import {
  callsWithStatus,
  cleanRunCalls,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  LogWatch,
  TEST_JITTER_MS,
  waitFor,
} from '../helpers/governed.ts';
import { jobsPerProcess } from '../helpers/repeats.ts';
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * Money and quota faults (issue 14 items 6 and 10), on both drivers, against the simulator with
 * 20 ms answers: the quota runs out hours before its reset and the owner raises it during the
 * pause; the balance runs out (402) and is topped up before the next run. Each ends exact, with
 * api_calls equal to the service's ledger and no call paid twice, and prints what the fault
 * cost beyond a clean run.
 */

const CATALOGUE = { fragrances: 150, seed: 1415 };
const LATENCY_MS = 20;
const CONCURRENCY = 4;
const RECHECK_MS = 500;

const files = governedFiles();

let clean: { calls: number; cents: number };
let config: string;
beforeAll(async () => {
  clean = await cleanRunCalls(() => startSimulator(CATALOGUE), files.path('clean.duckdb'), files.config);
  config = files.path('quota-raise.json');
  await writeFile(
    config,
    JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS, recheckMs: RECHECK_MS } }),
  );
});

/** Flags for the driver; the Redis prefix is removed after `fn`. */
async function onDriver<T>(
  driver: 'memory' | 'bullmq',
  name: string,
  fn: (flags: Record<string, string>) => Promise<T>,
): Promise<T> {
  const flags: Record<string, string> = { config, concurrency: String(CONCURRENCY) };
  if (driver === 'memory') return fn(flags);
  const redisUrl = inject('redisUrl');
  const prefix = uniquePrefix(`fault-${name}`);
  try {
    return await fn({ ...flags, redis: redisUrl, 'queue-prefix': prefix });
  } finally {
    await cleanPrefix(redisUrl, prefix);
  }
}

/** Jobs in flight on `driver` (jobConcurrency under the scenario's flags), for the reports. */
const jobsOn = (driver: 'memory' | 'bullmq') =>
  jobsPerProcess({
    config,
    concurrency: String(CONCURRENCY),
    redis: driver === 'bullmq' ? inject('redisUrl') : undefined,
  });

const accords429 = (sim: Simulator) => sim.ledger().byEndpoint['/v1/accords']?.byStatus['429'] ?? 0;

describe.each(['memory', 'bullmq'] as const)('faults: quota and balance (%s driver)', (driver) => {
  it('the quota raised during a pause hours before its reset: resumed by a recheck, exact', async () => {
    // A service day of 6 real hours: the reset cannot come during the test.
    const sim = await startSimulator({
      ...CATALOGUE,
      dailyQuota: Math.floor(clean.calls / 3),
      daySeconds: 21_600,
    });
    sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      const dbPath = files.path(`raise-${driver}.duckdb`);
      const logs = new LogWatch();
      const summary = await onDriver(driver, `raise-${driver}`, async (flags) => {
        const run = runTestSync({ baseUrl: sim.url, dbPath, logLines: logs, flags });
        await waitFor('the pause and three refused rechecks', () => accords429(sim) >= 3);
        sim.setLimit(10 * clean.calls);
        return run;
      });
      expect(summary.status).toBe('completed');
      expect(sim.clock().serviceDate).toBe('2026-01-01');
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const rechecks = logs.filter((l) => l.includes('"msg":"quota recheck')).length;
      const paidAgain = callsWithStatus(sim, 200) - clean.calls - 1;
      console.log(
        `[faults] quota raised during a pause (${driver}): ${rechecks} rechecks (${accords429(sim)} answered 429, 1 at 1 cent found the quota), paid calls repeated ${paidAgain}, jobs in flight at the pause ≤ ${jobsOn(driver)}`,
      );
      expect(callsWithStatus(sim, 429)).toBe(rechecks - 1);
      // A review walk the pause cut short went on from its last page: nothing paid twice.
      expect(paidAgain).toBe(0);
    } finally {
      await sim.close();
    }
  });

  it('402 mid-run, then a top-up: the next run continues, exact', async () => {
    const sim = await startSimulator({ ...CATALOGUE, balanceCents: Math.floor(clean.cents / 2) });
    sim.setFaults({ latencyMs: LATENCY_MS });
    try {
      const dbPath = files.path(`topup-${driver}.duckdb`);
      const [first, second] = await onDriver(driver, `topup-${driver}`, async (flags) => {
        const a = await runTestSync({ baseUrl: sim.url, dbPath, flags });
        sim.topUp(10 * clean.cents);
        const b = await runTestSync({ baseUrl: sim.url, dbPath, flags });
        return [a, b] as const;
      });
      expect(first.status).toBe('payment_required');
      expect(second.status).toBe('completed');
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
      const paidAgain = callsWithStatus(sim, 200) - clean.calls;
      console.log(
        `[faults] 402 then top-up (${driver}): paid calls repeated ${paidAgain}, refused (402) ${callsWithStatus(sim, 402)}, jobs in flight at the stop ≤ ${jobsOn(driver)}`,
      );
      // What the stopped jobs bought (review pages) was kept: the next run paid none again.
      expect(paidAgain).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
