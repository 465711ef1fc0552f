import { describe, expect, it } from 'vitest';
import { createMemoryGovernor, createRedisGovernor, type Governor } from '../../src/governor/index.ts';
import { admitOk, fakeClock, outcome, testLimits, type FakeClock } from './fixtures.ts';
import { testRedis } from './test-redis.ts';

/**
 * A ticket that expires unsettled (its process died after admission: a killed sync's worker)
 * is charged as spent, since its request may have been sent, to the run it was admitted in,
 * as a late settle would be: not to a run started since, which never sent it and whose cap it
 * would eat. The service's day is charged either way (docs/governor.md, "Ticket expiry").
 */

const shared = testRedis('expiry-run');

const T0 = Date.UTC(2030, 0, 15, 12);
const RESET = Date.UTC(2030, 0, 16);
const TTL_MS = 5_000;

interface Setup {
  gov: Governor;
  clock: FakeClock;
  /** The cents a run's books hold where they can be read apart from the current run's (Redis). */
  runCents?: (runId: string) => Promise<number>;
}

const memory = (): Setup => {
  const clock = fakeClock(T0);
  return { gov: createMemoryGovernor(testLimits(), { now: clock.now, ticketTtlMs: TTL_MS }), clock };
};
const redis = (): Setup => {
  const prefix = shared.prefix();
  const clock = fakeClock(T0);
  const gov = createRedisGovernor(shared.redis, {
    prefix,
    limits: testLimits(),
    now: clock.now,
    ticketTtlMs: TTL_MS,
  });
  const runCents = async (runId: string) =>
    Number((await shared.redis.hget(`${prefix}:gov:run:${runId}`, 'cents')) ?? 0);
  return { gov, clock, runCents };
};

describe.each([
  { name: 'memory', setup: memory },
  { name: 'redis', setup: redis },
])('$name governor: a ticket expired unsettled', ({ setup }) => {
  it('is charged to the run that took it, not to the run current at its expiry', async () => {
    const { gov, clock, runCents } = setup();
    await gov.startRun('run-a');
    await gov.settle(await admitOk(gov), outcome(200, { limit: 1000, remaining: 900, resetAtMs: RESET }));
    const lost = await admitOk(gov, 'getSimilar'); // 2 cents; its process dies
    await gov.startRun('run-b');
    clock.advance(TTL_MS);
    const next = await admitOk(gov); // the expiry is housekept here
    expect(await gov.status()).toMatchObject({
      inFlight: 1,
      centsToday: 3,
      centsThisRun: 0,
      callsThisRun: 0,
    });
    await gov.settle(next, outcome(200));
    await gov.settle(lost, outcome(200)); // a late answer: charged at expiry already
    expect(await gov.status()).toMatchObject({
      inFlight: 0,
      centsToday: 4,
      centsThisRun: 1,
      callsThisRun: 1,
    });
    if (runCents) expect(await runCents('run-a')).toBe(3);
  });

  it('of the current run is charged to it, once', async () => {
    const { gov, clock } = setup();
    await gov.startRun('run-a');
    const lost = await admitOk(gov, 'getSimilar');
    clock.advance(TTL_MS);
    await gov.release(await admitOk(gov));
    await gov.release(lost); // a late release does not refund it
    expect(await gov.status()).toMatchObject({
      inFlight: 0,
      centsToday: 2,
      centsThisRun: 2,
      callsThisRun: 1,
    });
  });
});
