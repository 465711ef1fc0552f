import pino from 'pino';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, test } from 'vitest';
import { leaseKey, LeaseWatch } from '../../src/queue/lease.ts';
import { ServedRuns } from '../../src/queue/served-runs.ts';
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

  test('a run halted at once spares the job that read the 402, once: two jobs reading one each do not halt each other', async () => {
    await redis.set(leaseKey(prefix), 'run-a', 'PX', 60_000);
    const w = watch();
    expect(await w.holderFor('run-a')).toBe('run-a');
    const reader = w.track('job-1', 'run-a');
    const second = w.track('job-2', 'run-a');
    const other = w.track('job-3', 'run-a');
    w.haltRun('run-a', 'job-1');
    expect([reader, second, other].map((h) => h.signal.aborted)).toEqual([false, true, true]);
    // job-2 read a 402 of its own a moment later: job-1 still ends of itself and reports the stop.
    w.haltRun('run-a', 'job-2');
    expect(reader.signal.aborted).toBe(false);
    // A job of the run taken later sends nothing.
    expect(w.track('job-4', 'run-a').signal.aborted).toBe(true);
  });

  test('never seen held: no run', async () => {
    expect(await watch().holderFor('run-a')).toBe(null);
  });

  test('a worker says which run it serves and when that run ends, with the attempts it made for it', async () => {
    const said: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void said.push(JSON.parse(line).msg) });
    const w = new LeaseWatch({ connection: redis, prefix, leaseMs: 1000, log }, new ServedRuns(log));
    await redis.set(leaseKey(prefix), 'run-a', 'PX', 60_000);
    expect(await w.holderFor('run-a')).toBe('run-a');
    w.track('job-1', 'run-a');
    w.track('job-2', 'run-a');
    expect(await w.holderFor('run-a')).toBe('run-a'); // the same run: nothing more to say
    await redis.set(leaseKey(prefix), 'run-b', 'PX', 60_000);
    expect(await w.holderFor('run-b')).toBe('run-b'); // a job of run-b reads the lease again
    expect(said).toEqual([
      'serving run run-a',
      'run run-a ended: 2 job attempts served here',
      'serving run run-b',
    ]);
  });
});
