import { jobConcurrency } from '../../config/index.ts';
import type { FragranceClient } from '../../api/client.ts';
import { ConfigError, oneLine } from '../../errors.ts';
import { createRedisGovernor } from '../../governor/index.ts';
import type { GovernorLimits } from '../../governor/types.ts';
import { runInfoKey, startFetchWorker, type RunInfo } from '../../queue/fetch-worker.ts';
import { RedisLossNotice } from '../../queue/redis-loss.ts';
import { startScheduleWorker } from '../../queue/schedule.ts';
import { runScheduledSync, stopScheduledSyncs } from '../scheduled-sync.ts';
import { clientFromConfig } from '../../sync/client.ts';
import { spoolFolder } from '../../sync/paths.ts';
import { connectRedis, governorLimits } from '../../sync/runtime.ts';
import { createLogger } from '../../util/logger.ts';
import { ensureWritableDir } from '../../util/writable-dir.ts';
import { EXIT } from '../exit-codes.ts';
import { startHeartbeat } from '../heartbeat.ts';
import { configOf, type CommandInput } from '../spec.ts';

export async function run(input: CommandInput): Promise<number> {
  const config = configOf(input);
  if (!config.redisUrl) {
    console.error('fragsync worker: config: redisUrl is required (--redis URL or REDIS_URL)');
    return EXIT.badInput;
  }
  if (!config.apiKey) {
    console.error(
      'fragsync worker: config: the API key is missing: set the FRAGSYNC_API_KEY environment variable',
    );
    return EXIT.badInput;
  }
  const apiKey = config.apiKey;
  try {
    // Before Redis: an unusable spool folder answers at once, naming itself.
    ensureWritableDir(spoolFolder(config), 'queue.spoolDir');
  } catch (err) {
    console.error(`fragsync worker: ${(err as Error).message}`);
    return EXIT.badInput;
  }
  const log = createLogger(config.logLevel).child({ role: 'worker' });
  let redis;
  try {
    redis = await connectRedis(config.redisUrl);
  } catch (err) {
    console.error(`fragsync worker: ${oneLine(err)}`);
    return EXIT.badInput;
  }
  // Redis going away and coming back: one line each, not an error per retry.
  const notice = new RedisLossNotice(log);
  notice.watch(redis);
  const governor = createRedisGovernor(redis, {
    prefix: config.queue.prefix,
    limits: governorLimits(config),
    logger: log,
  });
  // One client per service address and run limits: its governor checks the run's caps and
  // reserve (RunInfo.limits), not this process's own, so no worker can overspend a run.
  const clients = new Map<string, FragranceClient>();
  const clientFor = (baseUrl: string, limits: GovernorLimits) => {
    const key = JSON.stringify([baseUrl, limits]);
    let c = clients.get(key);
    if (!c) {
      c = clientFromConfig(config, {
        baseUrl,
        apiKey,
        governor: createRedisGovernor(redis, { prefix: config.queue.prefix, limits, logger: log }),
        // Job attempts record their calls through their own view (queue/execute.ts).
        onCall: (call) => log.error({ endpoint: call.endpoint }, 'call outside a job'),
        log,
      });
      clients.set(key, c);
    }
    return c;
  };

  let fetchWorker;
  try {
    fetchWorker = await startFetchWorker({
      connection: redis,
      prefix: config.queue.prefix,
      concurrency: jobConcurrency(config),
      governor,
      log,
      spoolDir: spoolFolder(config),
      lockMs: config.queue.lockMs,
      notice,
      leaseMs: config.queue.leaseMs,
      announceRuns: true,
      depsFor: async (runId) => {
        const raw = await redis.get(runInfoKey(config.queue.prefix));
        if (!raw) return null;
        const info = JSON.parse(raw) as RunInfo;
        if (info.runId !== runId) return null;
        // The worker's own --base-url wins: it may reach the service by another address.
        const client = clientFor(config.baseUrl ?? info.baseUrl, info.limits ?? governorLimits(config));
        return { deps: { client, settings: info.settings, log }, wait: info.wait };
      },
    });
  } catch (err) {
    console.error(`fragsync worker: ${oneLine(err)}`);
    for (const c of clients.values()) await c.close();
    redis.disconnect();
    return err instanceof ConfigError ? EXIT.badInput : EXIT.unexpected;
  }
  // The scheduled nightly (fragsync schedule): a sync process of its own, sharing this Redis.
  const scheduled = startScheduleWorker({
    connection: redis,
    prefix: config.queue.prefix,
    log,
    runSync: (args) => runScheduledSync(args, config.redisUrl as string, config.queue.prefix),
    onError: notice.onWorkerError('schedule'),
  });
  console.log(`fragsync worker ${process.pid}: waiting for jobs (queue prefix '${config.queue.prefix}')`);
  const heartbeatFile = input.opts.heartbeat as string | undefined;
  const heartbeat = heartbeatFile ? startHeartbeat(heartbeatFile, () => redis.ping()) : null;

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  heartbeat?.stop();
  log.info('stopping: finishing the jobs in hand');
  stopScheduledSyncs();
  // Jobs in hand get a few seconds to finish and report; past that (Redis away, or a long
  // job), the worker stops without them: their calls are in its spool, which the next
  // process on this host reports, and their locks lapse so another worker takes them.
  const closed = (async () => {
    await scheduled.close();
    await fetchWorker.close();
  })().then(
    () => true,
    () => false,
  );
  let timer: NodeJS.Timeout | undefined;
  const graceful = await Promise.race([
    closed,
    new Promise<false>((r) => (timer = setTimeout(() => r(false), STOP_GRACE_MS))),
  ]);
  clearTimeout(timer);
  if (!graceful) {
    log.warn(`jobs in hand did not finish within ${STOP_GRACE_MS / 1000} s: stopping without them`);
    fetchWorker.abandon();
    // Commands waiting for Redis fail now instead of waiting for it.
    redis.disconnect();
  }
  console.log(`fragsync worker ${process.pid}: stopped after ${fetchWorker.processed()} job attempts`);
  for (const c of clients.values()) await c.close();
  if (graceful) await governor.close();
  redis.disconnect();
  // Without Redis, BullMQ's own connections may still be trying to close: they must not keep
  // the process alive (an unref'd timer fires only if something else does).
  if (!graceful) setTimeout(() => process.exit(EXIT.ok), 1000).unref();
  return EXIT.ok;
}

/** How long SIGINT/SIGTERM waits for the jobs in hand before stopping without them, in ms. */
const STOP_GRACE_MS = 5000;
