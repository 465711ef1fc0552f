import { existsSync } from 'node:fs';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { oneLine } from '../errors.ts';
import { createRedisGovernor } from '../governor/index.ts';
import type { GovernorLimits, GovernorStatus } from '../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE, runInfoKey, type RunInfo } from '../queue/fetch-worker.ts';
import { createLogger } from '../util/logger.ts';
import { Warehouse } from '../warehouse/warehouse.ts';
import { readWarehouseFigures, type WarehouseFigures } from './warehouse-figures.ts';

/**
 * What the dashboard's own page shows, gathered read-only: the shared state in Redis (quota,
 * pause, spend against the run's caps, queue depths) and the warehouse (runs, ledger,
 * freshness, quarantine). The warehouse is opened read-only for each look and closed at
 * once; while a sync holds it (DuckDB allows one writer, and no reader beside it) the page
 * says so and keeps showing the figures it read last, with their time.
 */

export interface QueueDepth {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

export interface Overview {
  at: string;
  queuePrefix: string;
  /** The run going on (enqueued on this prefix and not finished), if any. */
  run: { runId: string; baseUrl: string } | null;
  /** Whose caps and reserve the figures are measured against. */
  capsFrom: 'run' | 'config';
  /**
   * `from`: Redis (the governor's state, live) or, when Redis holds none (syncs ran without
   * it), the warehouse's ledger: then `remaining` is the last the service answered, `asOf`
   * when (it may have changed since), and `resetAt` the end of that service day.
   */
  quota: {
    limit: number | null;
    remaining: number | null;
    resetAt: string | null;
    reserve: number;
    from: FigureSource;
    asOf: string | null;
  };
  pausedUntil: string | null;
  spend: {
    /** Redis's count, or with no governor state in Redis the ledger's on the service's `day`. */
    centsToday: number;
    centsTodayFrom: FigureSource;
    day: string | null;
    maxCentsPerDay: number | null;
    centsThisRun: number;
    maxCentsPerRun: number | null;
    callsThisRun: number;
    inFlight: number;
  };
  queues: QueueDepth[];
  warehouse: {
    path: string;
    /** ok: read now; held: a sync has it open (figures are from `readAt`); missing; error. */
    state: 'ok' | 'held' | 'missing' | 'error';
    message: string | null;
    readAt: string | null;
    figures: WarehouseFigures | null;
  };
}

/** Where a headline figure was read: the governor's state in Redis, or the warehouse's ledger. */
export type FigureSource = 'redis' | 'warehouse';

/**
 * The headline's quota and spend: the governor's in Redis, or, where Redis has no governor
 * state on this prefix (no call seen through it, nothing spent today, no run enqueued: the
 * syncs ran without Redis), the warehouse ledger's, as `status` reads them (ledger-day.ts).
 */
function headline(
  s: GovernorStatus,
  running: boolean,
  figures: WarehouseFigures | null,
): { quota: Overview['quota']; spend: Pick<Overview['spend'], 'centsToday' | 'centsTodayFrom' | 'day'> } {
  const live = s.limit !== null || s.centsToday > 0 || running;
  const fromRedis = {
    quota: {
      limit: s.limit,
      remaining: s.remaining,
      resetAt: s.resetAt?.toISOString() ?? null,
      reserve: s.reserve,
      from: 'redis' as const,
      asOf: null,
    },
    spend: { centsToday: s.centsToday, centsTodayFrom: 'redis' as const, day: null },
  };
  if (live || !figures) return fromRedis;
  const q = figures.lastQuota;
  return {
    quota: q
      ? {
          ...fromRedis.quota,
          remaining: q.remaining,
          resetAt: q.resetAt.toISOString(),
          from: 'warehouse',
          asOf: q.sent,
        }
      : fromRedis.quota,
    spend: {
      centsToday: figures.ledgerToday.cents,
      centsTodayFrom: 'warehouse',
      day: figures.ledgerToday.day,
    },
  };
}

export interface OverviewSource {
  read(): Promise<Overview>;
  close(): Promise<void>;
}

export function overviewSource(opts: {
  redis: Redis;
  prefix: string;
  dbPath: string;
  /** The caps and reserve to show when no run is going on (the dashboard's own config). */
  limits: GovernorLimits;
}): OverviewSource {
  const { redis, prefix, dbPath } = opts;
  const queues = [FETCH_QUEUE, LOAD_QUEUE].map((name) => new Queue(name, { connection: redis, prefix }));
  let lastFigures: { figures: WarehouseFigures; at: string } | null = null;

  async function warehouse(now: string): Promise<Overview['warehouse']> {
    if (!existsSync(dbPath))
      return {
        path: dbPath,
        state: 'missing',
        message: 'no warehouse file yet',
        readAt: null,
        figures: null,
      };
    let wh: Warehouse | undefined;
    try {
      wh = await Warehouse.open(dbPath, { readOnly: true });
      lastFigures = { figures: await readWarehouseFigures(wh, new Date(now), dbPath), at: now };
      return { path: dbPath, state: 'ok', message: null, readAt: now, figures: lastFigures.figures };
    } catch (err) {
      const held = (err as { code?: string }).code === 'WAREHOUSE_LOCKED';
      return {
        path: dbPath,
        state: held ? 'held' : 'error',
        message: held
          ? 'a sync is writing the warehouse (DuckDB allows no reader beside its one writer)'
          : oneLine(err),
        readAt: lastFigures?.at ?? null,
        figures: lastFigures?.figures ?? null,
      };
    } finally {
      await wh?.close().catch(() => undefined);
    }
  }

  return {
    async read() {
      const at = new Date().toISOString();
      const raw = await redis.get(runInfoKey(prefix));
      const info = raw ? (JSON.parse(raw) as RunInfo) : null;
      // During a run, its own caps (its processes govern by them); else the configured ones.
      const governor = createRedisGovernor(redis, {
        prefix,
        limits: info?.limits ?? opts.limits,
        logger: createLogger('silent'),
      });
      const s = await governor.status();
      await governor.close();
      const depths = await Promise.all(
        queues.map(async (q) => {
          const c = await q.getJobCounts(
            'waiting',
            'prioritized',
            'active',
            'delayed',
            'failed',
            'completed',
          );
          return {
            name: q.name,
            waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            failed: c.failed ?? 0,
            completed: c.completed ?? 0,
          };
        }),
      );
      const wh = await warehouse(at);
      const top = headline(s, info !== null, wh.figures);
      const paused =
        s.pausedUntil && s.pausedUntil.getTime() > Date.now() ? s.pausedUntil.toISOString() : null;
      return {
        at,
        queuePrefix: prefix,
        run: info ? { runId: info.runId, baseUrl: info.baseUrl } : null,
        capsFrom: info?.limits ? 'run' : 'config',
        quota: top.quota,
        pausedUntil: paused,
        spend: {
          ...top.spend,
          maxCentsPerDay: s.maxCentsPerDay,
          centsThisRun: s.centsThisRun,
          maxCentsPerRun: s.maxCentsPerRun,
          callsThisRun: s.callsThisRun,
          inFlight: s.inFlight,
        },
        queues: depths,
        warehouse: wh,
      };
    },
    async close() {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
