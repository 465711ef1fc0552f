import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { CallOutcome } from '../../src/domain/calls.ts';
import { outcome, testLimits, type CallTarget } from './fixtures.ts';

/** Limits of the cross-process tests: reserve = max(5, 3% of the limit). */
export const CHILD_LIMITS = testLimits({ reserveCalls: 5, reservePercent: 3 });

export { deletePrefix } from '../helpers/redis-server.ts';

export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1 });
}

const SERVICE_CALL = `
redis.call('INCR', KEYS[2])
local left = tonumber(redis.call('GET', KEYS[1]) or '0')
if left <= 0 then return -1 end
return redis.call('DECR', KEYS[1])`;

export interface RedisService extends CallTarget {
  init(): Promise<unknown>;
  call(): Promise<CallOutcome>;
  remaining(): Promise<number>;
  calls(): Promise<number>;
}

/** The service's side of the quota, shared by processes: a counter in Redis under the prefix. */
export function redisService(redis: Redis, prefix: string, limit: number, resetAtMs: number): RedisService {
  const remainingKey = `${prefix}:svc:remaining`;
  const callsKey = `${prefix}:svc:calls`;
  return {
    init: () => redis.set(remainingKey, limit),
    async call() {
      const left = Number(await redis.eval(SERVICE_CALL, 2, remainingKey, callsKey));
      if (left < 0) return outcome(429, { limit, remaining: 0, resetAtMs });
      return outcome(200, { limit, remaining: left, resetAtMs });
    },
    remaining: async () => Number(await redis.get(remainingKey)),
    calls: async () => Number((await redis.get(callsKey)) ?? 0),
  };
}

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/** Start test/governor/child.ts in its own Node process; resolves with it and its first line. */
export function spawnChild(
  args: string[],
  script = CHILD,
): {
  child: ChildProcess;
  firstLine: Promise<string>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before answering: ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exited };
}
