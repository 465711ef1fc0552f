import pino from 'pino';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, test } from 'vitest';
import { leaseKey, LeaseWatch } from '../../src/queue/lease.ts';
import { connect, deletePrefix } from '../governor/redis-helpers.ts';
import { uniquePrefix } from '../helpers/tmp.ts';

/**
 * What a worker makes of the run lease (src/queue/lease.ts, LeaseWatch) against a real Redis:
 * a lease deleted before it could have lapsed (Redis lost its data) still names its run until
 * then, so the jobs in hand are not halted; a lease that lapsed names no run.
 */

let redis: Redis;
let prefix: string;
beforeEach(() => {
  redis = connect(inject('redisUrl'));
  prefix = uniquePrefix('lease-watch');
});
afterEach(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const watch = () =>
  new LeaseWatch({ connection: redis, prefix, leaseMs: 1000, log: pino({ level: 'silent' }) });

describe('LeaseWatch', () => {
  test('a lease deleted long before it could lapse still names its run; another run taking it is seen at once', async () => {
    await redis.set(leaseKey(prefix), 'run-a', 'PX', 60_000);
    const w = watch();
    expect(await w.holderFor('none')).toBe('run-a');
    await redis.del(leaseKey(prefix)); // FLUSHALL: the sync sets it again at its next renewal
    expect(await w.holderFor('none')).toBe('run-a');
    // A job of the run taken now is not halted.
    expect(w.track('job-1', 'run-a').signal.aborted).toBe(false);
    await redis.set(leaseKey(prefix), 'run-b', 'PX', 60_000);
    expect(await w.holderFor('none')).toBe('run-b');
  });

  test('a lease that lapsed names no run', async () => {
    await redis.set(leaseKey(prefix), 'run-a', 'PX', 150);
    const w = watch();
    expect(await w.holderFor('none')).toBe('run-a');
    while ((await redis.exists(leaseKey(prefix))) === 1) await new Promise((r) => setTimeout(r, 20));
    expect(await w.holderFor('none')).toBe(null);
  });

  test('never seen held: no run', async () => {
    expect(await watch().holderFor('run-a')).toBe(null);
  });
});
