import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { jobConcurrency, type Config } from '../config/index.ts';
import { FragsyncError } from '../errors.ts';
import { createMemoryGovernor, createRedisGovernor } from '../governor/index.ts';
import type { Governor, GovernorLimits } from '../governor/types.ts';
import { MemoryDriver } from '../queue/memory-driver.ts';
import type { QueueDriver } from '../queue/types.ts';
import { checkPaths, spoolFolder } from './paths.ts';
import type { DriverContext } from './types.ts';

export function governorLimits(config: Config): GovernorLimits {
  return {
    reserveCalls: config.quota.reserveCalls,
    reservePercent: config.quota.reservePercent,
    maxCentsPerRun: config.budget.maxCentsPerRun,
    maxCentsPerDay: config.budget.maxCentsPerDay,
    resumeJitterMs: config.quota.resumeJitterMs,
  };
}

export interface Runtime {
  governor: Governor;
  redis: Redis | null;
  makeDriver(ctx: DriverContext): Promise<QueueDriver>;
  close(): Promise<void>;
}

/**
 * The process-wide pieces of a run: in-process (memory governor, memory driver) where no
 * Redis is configured; otherwise the Redis governor shared by every worker and the BullMQ
 * driver.
 */
export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  checkPaths(config);
  if (!config.redisUrl) {
    const governor = createMemoryGovernor(governorLimits(config), { logger: log });
    return {
      governor,
      redis: null,
      makeDriver: async (ctx) =>
        new MemoryDriver({
          deps: { client: ctx.client, settings: ctx.settings, log },
          governor,
          concurrency: jobConcurrency(config),
          wait: config.quota.wait,
          onOutcome: ctx.onOutcome,
          onPause: ctx.onPause,
          onResume: ctx.onResume,
        }),
      close: async () => governor.close(),
    };
  }
  const redis = await connectRedis(config.redisUrl);
  const governor = createRedisGovernor(redis, {
    prefix: config.queue.prefix,
    limits: governorLimits(config),
    logger: log,
  });
  const { BullmqDriver } = await import('../queue/bullmq-driver.ts');
  return {
    governor,
    redis,
    makeDriver: (ctx) =>
      BullmqDriver.create({
        connection: redis,
        redisUrl: config.redisUrl as string,
        prefix: config.queue.prefix,
        runId: ctx.runId,
        baseUrl: config.baseUrl as string,
        settings: ctx.settings,
        deps: { client: ctx.client, settings: ctx.settings, log },
        governor,
        limits: governorLimits(config),
        concurrency: jobConcurrency(config),
        localWorker: true,
        spoolDir: spoolFolder(config),
        lockMs: config.queue.lockMs,
        leaseMs: config.queue.leaseMs,
        wait: config.quota.wait,
        onOutcome: ctx.onOutcome,
        onPause: ctx.onPause,
        onResume: ctx.onResume,
        log,
      }),
    close: async () => {
      await governor.close();
      redis.disconnect();
    },
  };
}

/**
 * Connect, failing fast with one line when Redis is unreachable: the address (password
 * hidden), the reason, and what to check. Without an 'error' listener ioredis would print
 * "Unhandled error event" and a stack trace first.
 */
export async function connectRedis(url: string): Promise<Redis> {
  // Loaded only here: an in-process sync never loads ioredis (0.1-0.4 s of its start).
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, connectTimeout: 5000 });
  let lastError: Error | null = null;
  const onError = (err: Error) => {
    lastError = err;
  };
  redis.on('error', onError);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const reason = (err as NodeJS.ErrnoException).code ?? (lastError ?? (err as Error)).message;
    throw new FragsyncError(
      'REDIS_UNREACHABLE',
      `cannot connect to Redis at ${redactUrl(url)} (${reason}): check that Redis runs there and that --redis or REDIS_URL names it`,
      { context: { redis: redactUrl(url) }, transient: true },
    );
  }
  return redis;
}

/** A Redis URL may carry a password: never print it. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}
