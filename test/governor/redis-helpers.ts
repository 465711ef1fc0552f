import { Redis } from 'ioredis';

/** Delete only the keys under one test prefix (never FLUSHDB: the Redis may be shared). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 200);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
}
