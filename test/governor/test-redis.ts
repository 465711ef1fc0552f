import type { Redis } from 'ioredis';
import { afterAll, beforeAll, inject } from 'vitest';
import { uniquePrefix } from '../helpers/tmp.ts';
import { connect, deletePrefix } from './redis-helpers.ts';

// Apart from redis-helpers.ts: the child processes of the cross-process tests import that
// file outside vitest.

/**
 * The test run's Redis for one test file: connected before its tests, every prefix handed out
 * by `prefix()` deleted after them (never a flush: the Redis may not be ours).
 */
export function testRedis(name: string): { readonly redis: Redis; prefix(): string } {
  let redis: Redis | null = null;
  const prefixes: string[] = [];
  beforeAll(() => {
    redis = connect(inject('redisUrl'));
  });
  afterAll(async () => {
    if (!redis) return;
    for (const p of prefixes) await deletePrefix(redis, p);
    await redis.quit();
  });
  return {
    get redis() {
      if (!redis) throw new Error('testRedis: used outside a test');
      return redis;
    },
    prefix() {
      const p = uniquePrefix(name);
      prefixes.push(p);
      return p;
    },
  };
}
