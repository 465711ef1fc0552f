import { writeFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import type { Ledger } from '../../src/simulator/types.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
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
import { runTestSync } from '../helpers/sync.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix } from '../helpers/worker-process.ts';

/**
 * A quota pause re-reads the quota (issue 14, item 6): the account's quota runs out hours
 * before its reset (a service day of 6 real hours), the sync pauses, rechecks every
 * RECHECK_MS with one GET /v1/accords?limit=1 (answered 429 while nothing is left), and the
 * owner raises the allowance (POST /_sim/limit). The next recheck finds it, and the run
 * finishes long before the reset, exact, on both drivers; every recheck is in api_calls, and
 * no page is bought twice (a review walk the pause cut short goes on from where it stopped).
 */

const files = governedFiles();
const RECHECK_MS = 300;
const SEED = 31;
const start = (dailyQuota: number) =>
  startSimulator({ fragrances: 40, seed: SEED, dailyQuota, daySeconds: 6 * 3600 });

async function recheckConfig(name: string, recheckMs: number): Promise<string> {
  const path = files.path(name);
  await writeFile(path, JSON.stringify({ quota: { resumeJitterMs: TEST_JITTER_MS, recheckMs } }));
  return path;
}

const accords429 = (sim: Simulator) => sim.ledger().byEndpoint['/v1/accords']?.byStatus['429'] ?? 0;

interface Scenario {
  summary: SyncSummary;
  sim: Simulator;
  dbPath: string;
  logs: LogWatch;
  /** Calls and cents of the service's ledger when the quota was raised. */
  raisedAt: { calls: number; refusedRechecks: number };
}

/** One sync that runs out of quota; after two refused rechecks the owner raises it. */
async function raisedSync(driver: 'memory' | 'bullmq', name: string): Promise<Scenario> {
  const sim = await start(120);
  const dbPath = files.path(`${name}.duckdb`);
  const logs = new LogWatch();
  const config = await recheckConfig(`${name}.json`, RECHECK_MS);
  const redisUrl = inject('redisUrl');
  const prefix = uniquePrefix(`recheck-${name}`);
  const flags: Record<string, string> = { config, concurrency: '4' };
  if (driver === 'bullmq') Object.assign(flags, { redis: redisUrl, 'queue-prefix': prefix });
  let raisedAt = { calls: -1, refusedRechecks: -1 };
  const owner = (async () => {
    await waitFor('the pause', () => logs.pauses.length > 0);
    await waitFor('two refused rechecks', () => accords429(sim) >= 2);
    sim.setLimit(1_000_000);
    raisedAt = { calls: sim.ledger().calls, refusedRechecks: accords429(sim) };
  })();
  try {
    const summary = await runTestSync({ baseUrl: sim.url, dbPath, logLines: logs, flags });
    await owner;
    return { summary, sim, dbPath, logs, raisedAt };
  } catch (err) {
    await sim.close();
    throw err;
  } finally {
    if (driver === 'bullmq') await cleanPrefix(redisUrl, prefix);
  }
}

describe.each(['memory', 'bullmq'] as const)('quota recheck during a pause (%s driver)', (driver) => {
  it('a quota raised during a pause is found by the next recheck; the run ends exact, before the reset', async () => {
    const { summary, sim, dbPath, logs, raisedAt } = await raisedSync(driver, `raise-${driver}`);
    try {
      expect(summary.status).toBe('completed');
      // The reset is hours away and did not come: the run ended on the recheck.
      expect(sim.clock().serviceDate).toBe('2026-01-01');
      expect(logs.pauses.length).toBeGreaterThanOrEqual(1);
      const lines = logs.map((l) => JSON.parse(l) as { msg?: string });
      const still = lines.filter((l) => l.msg === 'quota recheck: still paused').length;
      const found = lines.filter((l) => l.msg?.startsWith('quota recheck found quota left')).length;
      expect(found).toBe(1);
      // Every refused recheck was one 429 of GET /v1/accords, and nothing else was refused: the
      // governor stopped at the limit, and sent nothing but rechecks while paused.
      expect(callsWithStatus(sim, 429)).toBe(still);
      expect(accords429(sim)).toBe(still);
      // After the raise: at most the recheck then in flight was refused, and the next one found it.
      expect(still - raisedAt.refusedRechecks).toBeLessThanOrEqual(1);
      // What the rechecks cost: a clean run of the same catalogue plus one call per recheck,
      // and one cent for the one answered 200 (the simulator bills no 429).
      const clean = await cleanRunCalls(
        () => start(1_000_000),
        files.path(`clean-${driver}.duckdb`),
        files.config,
      );
      const calls = (l: Ledger, e: string) => l.byEndpoint[e]?.calls ?? 0;
      const ours = sim.ledger();
      const endpoints = new Set([...Object.keys(ours.byEndpoint), ...Object.keys(clean.ledger.byEndpoint)]);
      for (const e of endpoints) {
        // A review walk the pause cut short goes on from its last page (no page twice).
        const rechecks = e === '/v1/accords' ? still + found : 0;
        expect(calls(ours, e), e).toBe(calls(clean.ledger, e) + rechecks);
      }
      expect(ours.cents).toBe(clean.cents + found);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  }, 180_000);
});
