import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Queue } from 'bullmq';
import type { Config } from '../config/index.ts';
import { ConfigError, isFragsyncError, oneLine } from '../errors.ts';
import { createRedisGovernor } from '../governor/index.ts';
import type { GovernorStatus } from '../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE } from '../queue/fetch-worker.ts';
import { leaseKey } from '../queue/lease.ts';
import { connectRedis, governorLimits } from '../sync/runtime.ts';
import { createLogger } from '../util/logger.ts';
import { checkCreatableDir } from '../util/writable-dir.ts';
import { warehouseStatus, type WarehouseFigures } from '../warehouse/status.ts';
import { Warehouse } from '../warehouse/warehouse.ts';
import type { LockHolder } from '../warehouse/writer-lock.ts';
import { readWithLiveness, type Liveness } from '../warehouse/run-liveness.ts';

/**
 * What `fragsync status` shows, read once: the text (commands/status.ts) and --json
 * (status-json.ts) print the same figures, so the two cannot disagree.
 */
export interface StatusFigures {
  dbPath: string;
  /** Read from Redis when --redis is given; null without. */
  redis: RedisFigures | null;
  /** read; absent (no sync made it yet); held (a running sync has it open); unreadable (failure says why). */
  warehouse: 'read' | 'absent' | 'held' | 'unreadable';
  /** Why the warehouse could not be opened (held or unreadable). */
  warehouseError: string | null;
  /** Unreadable because of the user's input (not a warehouse, a schema too old to read): exit 2. */
  warehouseInputError?: boolean;
  figures: WarehouseFigures | null;
  /** The writer lock's holder, read after the warehouse. */
  holder: LockHolder | null;
  /** Whether a run (by id) marked running has a live process (run-liveness.ts). */
  liveness: (runId: string) => Liveness;
  /** The run going on, if any (its lease, its writer lock, or the latest run while alive). */
  runningRunId: string | null;
}

interface RedisFigures {
  governor: GovernorStatus;
  /** The governor's pause, while it lasts (it outlives the run that met it). */
  pausedUntil: Date | null;
  /** The run holding the queue prefix's lease. */
  lease: string | null;
  queues: { name: 'fetch' | 'load'; waiting: number; active: number; delayed: number }[];
}

/** The figures, or the one line of a setup error (a Redis, a dbPath): status exits 2 on it. */
type Gathered = StatusFigures | { error: string };

export async function gatherStatus(config: Config): Promise<Gathered> {
  let redis: RedisFigures | null = null;
  if (config.redisUrl) {
    try {
      redis = await readRedis(config, config.redisUrl);
    } catch (err) {
      return { error: oneLine(err) };
    }
  }
  // A run marked running is going on while its lease or writer lock is held (a process that
  // died holds neither): judged by the writer lock read before the warehouse and again after
  // (run-liveness.ts), so a run that starts or ends meanwhile is not taken for a dead one.
  const lease = redis ? redis.lease : undefined;
  const seen = await readWithLiveness(config.dbPath, () => readWarehouse(config.dbPath), lease);
  if ('error' in seen.value) return seen.value;
  const { liveness, holder } = seen;
  const { warehouse, warehouseError, warehouseInputError, figures } = seen.value;
  // Without Redis the quota state lives in the sync's process, but its writer lock says which
  // run is going on and whether it is waiting for the quota reset (a backfill may wait hours).
  const last = figures?.run;
  // The lease only when its run's process is not known gone: it outlives a SIGKILL by up to
  // 60% of queue.leaseMs, the writer lock's pid does not (run-liveness.ts).
  const live = redis?.lease && liveness(redis.lease).state !== 'died' ? redis.lease : null;
  const runningRunId =
    live ??
    // A lock of another host's is no proof of life (its pid cannot be checked from here).
    (holder && liveness(holder.runId).state === 'running' ? holder.runId : null) ??
    (last && last.status === 'running' && liveness(last.run_id).state === 'running' ? last.run_id : null);
  return {
    dbPath: config.dbPath,
    redis,
    warehouse,
    warehouseError,
    warehouseInputError,
    figures,
    holder,
    liveness,
    runningRunId,
  };
}

/** The warehouse's figures, or why there are none; `error`: a dbPath no sync could create. */
async function readWarehouse(
  dbPath: string,
): Promise<
  Pick<StatusFigures, 'warehouse' | 'warehouseError' | 'warehouseInputError' | 'figures'> | { error: string }
> {
  if (!existsSync(dbPath)) {
    // Not there yet, unless no sync could ever create it there (plan says the same).
    try {
      checkCreatableDir(dirname(resolve(dbPath)), 'dbPath');
    } catch (err) {
      return { error: err instanceof ConfigError ? err.message : oneLine(err) };
    }
    return { warehouse: 'absent', warehouseError: null, figures: null };
  }
  try {
    const wh = await Warehouse.open(dbPath, { readOnly: true });
    try {
      return { warehouse: 'read', warehouseError: null, figures: await warehouseStatus(wh) };
    } finally {
      await wh.close();
    }
  } catch (err) {
    // A sync holding the file is a state worth showing, not a failure of `status`.
    const held = isFragsyncError(err) && err.code === 'WAREHOUSE_LOCKED';
    return {
      warehouse: held ? 'held' : 'unreadable',
      warehouseError: oneLine(err),
      warehouseInputError: err instanceof ConfigError,
      figures: null,
    };
  }
}

async function readRedis(config: Config, url: string): Promise<RedisFigures> {
  const redis = await connectRedis(url);
  try {
    const gov = createRedisGovernor(redis, {
      prefix: config.queue.prefix,
      limits: governorLimits(config),
      logger: createLogger('silent'),
    });
    const governor = await gov.status();
    const lease = await redis.get(leaseKey(config.queue.prefix));
    const queues: RedisFigures['queues'] = [];
    for (const name of [FETCH_QUEUE, LOAD_QUEUE] as const) {
      const q = new Queue(name, { connection: redis, prefix: config.queue.prefix });
      const c = await q.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
      queues.push({
        name,
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
      });
      await q.close();
    }
    await gov.close();
    const paused = governor.pausedUntil;
    return { governor, pausedUntil: paused && paused > new Date() ? paused : null, lease, queues };
  } finally {
    redis.disconnect();
  }
}
