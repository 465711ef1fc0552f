import { describe, expect, it } from 'vitest';
import { createMemoryGovernor, createRedisGovernor, type Governor } from '../../src/governor/index.ts';
import { admitOk, fakeClock, outcome, testLimits } from './fixtures.ts';
import { testRedis } from './test-redis.ts';

/**
 * A 402 or a 401 settled halts the run: no request of it is admitted any more, by this
 * governor or (Redis) by any other process's on the same prefix, while the ones admitted
 * before are settled and charged as ever. The next run is admitted again (a top-up, then a
 * resume). Before, the governor admitted on: each process sent until its own first 402 came
 * back (test/e2e/payment-stop).
 */

const shared = testRedis('halt');

const T0 = Date.UTC(2030, 0, 15, 12);
const RESET = Date.UTC(2030, 0, 16);

/** Two governors sharing one state: the same object in process, two "processes" on Redis. */
type Pair = () => [Governor, Governor];

const memory: Pair = () => {
  const gov = createMemoryGovernor(testLimits(), { now: fakeClock(T0).now });
  return [gov, gov];
};
const redisPair: Pair = () => {
  const prefix = shared.prefix();
  const now = fakeClock(T0).now;
  return [0, 1].map(() => createRedisGovernor(shared.redis, { prefix, limits: testLimits(), now })) as [
    Governor,
    Governor,
  ];
};

describe.each([
  { name: 'memory', pair: memory },
  { name: 'redis, two processes', pair: redisPair },
])('$name governor: a run halted by a 402 or a 401', ({ pair }) => {
  it.each([
    { status: 402, reason: 'payment_required' },
    { status: 401, reason: 'unauthorized' },
  ])('after a $status settled, nothing of the run is admitted anywhere; the next run is', async (c) => {
    const [here, there] = pair();
    await here.startRun('run-1');
    const probe = await admitOk(here);
    await here.settle(probe, outcome(200, { limit: 1000, remaining: 900, resetAtMs: RESET }));
    // Other failures halt nothing.
    for (const status of [0, 400, 403, 404, 500]) await here.settle(await admitOk(here), outcome(status));
    const early = await admitOk(there, 'getSimilar');
    const refusedOne = await admitOk(here);
    await here.settle(refusedOne, outcome(c.status));
    for (const gov of [here, there]) {
      const a = await gov.admit('search');
      expect(a).toMatchObject({ ok: false, reason: c.reason, until: null });
      expect(a.ok ? '' : a.message).toContain(`answered ${c.status}`);
      // A quota recheck is a request too.
      expect(await gov.recheck('search', 1000)).toMatchObject({ ok: false, reason: c.reason });
    }
    // Admitted before the halt, answered after it: settled and charged as ever.
    await there.settle(early, outcome(c.status));
    expect(await there.status()).toMatchObject({ inFlight: 0, callsThisRun: 8, centsThisRun: 9 });
    // A worker joining the same run does not clear it; the next run starts admitted.
    await there.startRun('run-1');
    expect(await there.admit('search')).toMatchObject({ ok: false, reason: c.reason });
    await here.startRun('run-2');
    for (const gov of [here, there]) await gov.release(await admitOk(gov));
  });

  // A BullMQ worker keeps its requests in flight after the sync ends (or a lease after a
  // kill): a top-up and a new sync must not be halted, nor charged, by their late answers.
  it.each([402, 401])('a late %i of the run before neither halts nor charges the next', async (status) => {
    const [here, there] = pair();
    await here.startRun('run-a');
    const probe = await admitOk(here);
    await here.settle(probe, outcome(200, { limit: 1000, remaining: 900, resetAtMs: RESET }));
    const late = await admitOk(there, 'getSimilar');
    await here.startRun('run-b');
    await there.settle(late, outcome(status));
    // Spent today, but by run A: run B neither halted nor charged for it.
    expect(await here.status()).toMatchObject({ centsToday: 3, centsThisRun: 0, callsThisRun: 0 });
    for (const gov of [here, there]) await gov.release(await admitOk(gov));
    expect(await there.recheck('search', 1000)).toMatchObject({ ok: false, reason: 'busy' });
  });
});
