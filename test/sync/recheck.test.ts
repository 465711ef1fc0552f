import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FragranceClient } from '../../src/api/client.ts';
import type { StopReason } from '../../src/domain/run.ts';
import { createMemoryGovernor, createRedisGovernor, type Governor } from '../../src/governor/index.ts';
import { QuotaRecheck } from '../../src/sync/recheck.ts';
import { waitFor } from '../helpers/governed.ts';
import { admitOk, fakeClock, outcome, testLimits } from '../governor/fixtures.ts';
import { testRedis } from '../governor/test-redis.ts';

/**
 * A quota pause whose rechecks (1 cent each) spend the run's cent cap: no request of the run
 * fits any more, at the reset either, so the recheck stops the run (budget_exhausted) at once.
 * Before, it was refused 'run_budget' and tried again every interval, and the run waited for
 * the reset (hours) only for its jobs to stop on the cap then. The day's cap is different: it
 * opens at the service's midnight, when the quota resets, so the run waits.
 */

const T0 = Date.UTC(2030, 0, 15, 12);
const RESET = Date.UTC(2030, 0, 16);
const INTERVAL_MS = 20;

/** The governor refuses before any request would leave: a client call here is a failure. */
const noRequests = {
  withTicket() {
    throw new Error('a request left although the governor refused it');
  },
} as unknown as FragranceClient;

const shared = testRedis('recheck-cap');

type Cap = 'maxCentsPerRun' | 'maxCentsPerDay';
const governors: { name: string; make(cap: Cap): Governor }[] = [
  {
    name: 'memory',
    make: (cap) => createMemoryGovernor(testLimits({ [cap]: 1 }), { now: fakeClock(T0).now }),
  },
  {
    name: 'redis',
    make(cap) {
      return createRedisGovernor(shared.redis, {
        prefix: shared.prefix(),
        limits: testLimits({ [cap]: 1 }),
        now: fakeClock(T0).now,
      });
    },
  },
];

async function pausedAtCap(gov: Governor) {
  await gov.startRun('run-1');
  // The run's one cent is spent on a call answered 429: a pause until the reset.
  await gov.settle(
    await admitOk(gov, 'listAccords'),
    outcome(429, { limit: 100, remaining: 0, resetAtMs: RESET }),
  );
  expect(await gov.pausedUntil()).not.toBeNull();
  const stops: { reason: StopReason; message: string }[] = [];
  const recheck = new QuotaRecheck({
    governor: gov,
    client: noRequests,
    intervalMs: INTERVAL_MS,
    log: pino({ level: 'silent' }),
    resume: () => Promise.resolve(),
    stop: (reason, message) => {
      stops.push({ reason, message });
      return Promise.resolve();
    },
  });
  recheck.paused();
  return { recheck, stops };
}

describe.each(governors)('a quota recheck refused by a cent cap ($name governor)', ({ make }) => {
  it("the run's cap spent: the run stops budget_exhausted at the first recheck", async () => {
    const { recheck, stops } = await pausedAtCap(make('maxCentsPerRun'));
    try {
      await waitFor('the stop', () => stops.length > 0, 5_000);
      expect(stops).toEqual([{ reason: 'budget_exhausted', message: expect.any(String) }]);
    } finally {
      recheck.stop();
    }
  });

  it("the day's cap spent: no stop, the run waits for the service's midnight", async () => {
    const { recheck, stops } = await pausedAtCap(make('maxCentsPerDay'));
    try {
      await new Promise((r) => setTimeout(r, 10 * INTERVAL_MS));
      expect(stops).toEqual([]);
    } finally {
      recheck.stop();
    }
  });
});
