import { existsSync } from 'node:fs';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { oneLine } from '../errors.ts';
import { createRedisGovernor } from '../governor/index.ts';
import type { GovernorLimits } from '../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE, runInfoKey, type RunInfo } from '../queue/fetch-worker.ts';
import { createLogger } from '../util/logger.ts';
import { Warehouse } from '../warehouse/warehouse.ts';
import { readWithLiveness } from '../warehouse/run-liveness.ts';
import {
  headline,
  inProcessRun,
  runCard,
  type HeadlineQuota,
  type HeadlineSpend,
  type RunCard,
} from './headline.ts';
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
  quota: HeadlineQuota;
  pausedUntil: string | null;
  spend: HeadlineSpend & {
    maxCentsPerDay: number | null;
    centsThisRun: number;
    maxCentsPerRun: number | null;
    callsThisRun: number;
    inFlight: number;
  };
  /** What the "This run" card can say (headline.ts). */
  thisRun: RunCard;
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
      // The writer lock around the read: a sync running in-process holds it (run-liveness.ts).
      const seen = await readWithLiveness(dbPath, () => warehouse(at));
      const wh = seen.value;
      const top = headline(s, info !== null, wh.figures);
      const thisRun = runCard(top.live, inProcessRun(seen, info?.runId ?? null), wh.figures);
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
        thisRun,
        queues: depths,
        warehouse: wh,
      };
    },
    async close() {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
