import type { GovernorStatus } from '../governor/types.ts';
import type { Liveness } from '../warehouse/run-liveness.ts';
import type { LockHolder } from '../warehouse/writer-lock.ts';
import type { WarehouseFigures } from './warehouse-figures.ts';

/** Where a headline figure was read: the governor's state in Redis, or the warehouse's ledger. */
export type FigureSource = 'redis' | 'warehouse';

/**
 * `from`: Redis (the governor's state, live) or, when Redis holds none (syncs ran without
 * it), the warehouse's ledger: then `remaining` is the last the service answered, `asOf`
 * when (it may have changed since), and `resetAt` the end of that service day.
 */
export interface HeadlineQuota {
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  reserve: number;
  from: FigureSource;
  asOf: string | null;
  /**
   * From the warehouse only: that reading's service day is over (the quota was renewed at
   * `resetAt`); `remaining` is then null (the ledger keeps no limit) and `lastSeen` (on the
   * service's day `lastSeenDay`) what the service last answered.
   */
  renewed: boolean;
  lastSeen: number | null;
  lastSeenDay: string | null;
}

export interface HeadlineSpend {
  /** Redis's count, or with no governor state in Redis the ledger's on the service's `day`. */
  centsToday: number;
  centsTodayFrom: FigureSource;
  day: string | null;
}

/**
 * What the "This run" card can say. `redis`: the governor's run figures. Without them (no
 * governor state in Redis, or a sync in-process beside it): `in-process`, a sync going on that
 * the writer lock names, whose figures live in its own memory (its progress line shows them);
 * `warehouse`, no run going on, and the last run as the warehouse recorded it (or none).
 */
export type RunCard =
  | { from: 'redis' }
  | { from: 'in-process'; runId: string; pid: number; host: string }
  | {
      from: 'warehouse';
      last: { runId: string; status: string; calls: number; cents: number } | null;
    };

type Headline = {
  /** Redis holds governor state on the prefix (a call seen, a cent spent today, a run enqueued). */
  live: boolean;
  quota: HeadlineQuota;
  spend: HeadlineSpend;
};

/**
 * The headline's quota and spend: the governor's in Redis, or, where Redis has no governor
 * state on this prefix (no call seen through it, nothing spent today, no run enqueued: the
 * syncs ran without Redis), the warehouse ledger's, as `status` reads them (ledger-day.ts): a
 * reading of a service day that is over is not shown as what is left (renewed since).
 */
export function headline(s: GovernorStatus, running: boolean, figures: WarehouseFigures | null): Headline {
  const live = s.limit !== null || s.centsToday > 0 || running;
  const fromRedis = {
    quota: {
      limit: s.limit,
      remaining: s.remaining,
      resetAt: s.resetAt?.toISOString() ?? null,
      reserve: s.reserve,
      from: 'redis' as const,
      asOf: null,
      renewed: false,
      lastSeen: null,
      lastSeenDay: null,
    },
    spend: { centsToday: s.centsToday, centsTodayFrom: 'redis' as const, day: null },
  };
  if (live || !figures) return { live, ...fromRedis };
  const q = figures.lastQuota;
  return {
    live,
    quota: q
      ? {
          ...fromRedis.quota,
          remaining: q.renewed ? null : q.remaining,
          resetAt: q.resetAt.toISOString(),
          from: 'warehouse',
          asOf: q.sent,
          renewed: q.renewed,
          lastSeen: q.remaining,
          lastSeenDay: q.day,
        }
      : fromRedis.quota,
    spend: {
      centsToday: figures.ledgerToday.cents,
      centsTodayFrom: 'warehouse',
      day: figures.ledgerToday.day,
    },
  };
}

/**
 * The sync the writer lock names as going on here (as `status` judges it: run-liveness.ts),
 * when it is not the run enqueued on the prefix: one in-process, whose figures Redis lacks.
 */
export function inProcessRun(
  seen: { holder: LockHolder | null; liveness: (runId: string) => Liveness },
  queuedRunId: string | null,
): LockHolder | null {
  const h = seen.holder;
  if (!h || h.runId === queuedRunId || seen.liveness(h.runId).state !== 'running') return null;
  return h;
}

/** The "This run" card: Redis's run figures while it holds governor state and no sync runs in-process. */
export function runCard(
  live: boolean,
  inProcess: LockHolder | null,
  figures: WarehouseFigures | null,
): RunCard {
  if (inProcess)
    return { from: 'in-process', runId: inProcess.runId, pid: inProcess.pid, host: inProcess.host };
  if (live) return { from: 'redis' };
  const r = figures?.latestRun;
  return {
    from: 'warehouse',
    last: r
      ? { runId: r.run_id, status: r.status, calls: Number(r.calls ?? 0), cents: Number(r.cost_cents ?? 0) }
      : null,
  };
}
