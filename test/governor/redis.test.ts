import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedisGovernor } from '../../src/governor/index.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { governorContract } from './contract.ts';
import { admitOk, fakeClock, outcome, testLimits } from './fixtures.ts';
import { connect, deletePrefix } from './redis-helpers.ts';

let redis: Redis;
const prefixes: string[] = [];
const newPrefix = () => {
  const p = uniquePrefix('gov');
  prefixes.push(p);
  return p;
};

beforeAll(() => {
  redis = connect(inject('redisUrl'));
});

afterAll(async () => {
  for (const p of prefixes) await deletePrefix(redis, p);
  await redis.quit();
});

governorContract('redis', async ({ limits, now, random, ticketTtlMs, logger }) =>
  createRedisGovernor(redis, { prefix: newPrefix(), limits, now, random, ticketTtlMs, logger }),
);

describe('redis governor', () => {
  it('keeps its state under the prefix with the documented key names', async () => {
    const prefix = newPrefix();
    const clock = fakeClock(Date.UTC(2030, 0, 15, 12));
    const gov = createRedisGovernor(redis, { prefix, limits: testLimits(), now: clock.now });
    await gov.startRun('run-a');
    await gov.seedSpend(3, '2030-01-15');
    const t = await admitOk(gov, 'getSimilar');
    expect(await redis.zscore(`${prefix}:gov:inflight`, t.id)).toBe(String(clock.now() + 60_000));
    await gov.settle(t, outcome(200, { limit: 50, remaining: 40, resetAtMs: Date.UTC(2030, 0, 16) }));
    expect(await redis.hgetall(`${prefix}:gov:state`)).toMatchObject({
      limit: '50',
      remaining: '40',
      resetAt: String(Date.UTC(2030, 0, 16)),
      runId: 'run-a',
    });
    expect(await redis.get(`${prefix}:gov:day:2030-01-15`)).toBe('5');
    expect(await redis.hgetall(`${prefix}:gov:run:run-a`)).toEqual({ cents: '2', calls: '1' });
    expect(await redis.zcard(`${prefix}:gov:inflight`)).toBe(0);
  });

  it('each process converts the shared pause with its own clock: hosts whose clocks disagree wake at the reset', async () => {
    const prefix = newPrefix();
    const serviceNow = Date.UTC(2030, 0, 15, 23);
    const reset = Date.UTC(2030, 0, 16);
    const aheadMs = 10 * 60_000;
    // Host A's clock is right; host B's runs ten minutes ahead.
    const clockA = fakeClock(serviceNow);
    const clockB = fakeClock(serviceNow + aheadMs);
    const opts = { prefix, limits: testLimits({ reserveCalls: 0 }), random: () => 0 };
    const a = createRedisGovernor(redis, { ...opts, now: clockA.now });
    const b = createRedisGovernor(redis, { ...opts, now: clockB.now });
    const heard = (remaining: number) =>
      outcome(200, { limit: 100, remaining, resetAtMs: reset, serverDateMs: serviceNow });
    await b.settle(await admitOk(b), heard(50));
    // A's answer is the last one (the shared estimate is now A's offset) and puts the account
    // at the reserve: everyone pauses until the reset, each on its own clock.
    await a.settle(await admitOk(a), heard(0));
    expect(await a.pausedUntil()).toEqual(new Date(reset));
    expect(await b.pausedUntil()).toEqual(new Date(reset + aheadMs));
    expect((await b.status()).clockOffsetMs).toBe(-aheadMs);
    clockB.set(reset + aheadMs - 1);
    expect(await b.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
    clockB.set(reset + aheadMs);
    await admitOk(b);
  });

  it('admit itself starts the pause when remaining is at a process’s reserve', async () => {
    const prefix = newPrefix();
    const clock = fakeClock(Date.UTC(2030, 0, 15, 12));
    const reset = Date.UTC(2030, 0, 16);
    const opts = { prefix, now: clock.now, random: () => 0.5 };
    const lax = createRedisGovernor(redis, {
      ...opts,
      limits: testLimits({ reserveCalls: 2, reservePercent: 0 }),
    });
    const strict = createRedisGovernor(redis, {
      ...opts,
      limits: testLimits({ reserveCalls: 8, reservePercent: 0 }),
    });
    await lax.settle(await admitOk(lax), outcome(200, { limit: 100, remaining: 8, resetAtMs: reset }));
    expect(await lax.pausedUntil()).toBeNull();
    expect(await strict.admit('search')).toMatchObject({
      ok: false,
      reason: 'paused',
      until: new Date(reset + 500),
    });
    expect(await lax.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
  });

  it('close() leaves the caller’s connection open', async () => {
    const gov = createRedisGovernor(redis, { prefix: newPrefix(), limits: testLimits() });
    await gov.close();
    expect(await redis.ping()).toBe('PONG');
  });

  it('rejects a seed day that is not YYYY-MM-DD', async () => {
    const gov = createRedisGovernor(redis, { prefix: newPrefix(), limits: testLimits() });
    await expect(gov.seedSpend(5, '2030-1-5')).rejects.toThrow(/YYYY-MM-DD/);
  });
});
