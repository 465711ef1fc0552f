import type { Config, Objective } from '../config/index.ts';
import type { EndpointName } from '../domain/endpoints.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import { costOf, perFragranceCost, type Cost } from './cost-model.ts';
import { dueRule } from './freshness.ts';
import { nightlyRefresh, type NightlyRefresh } from './nightly-order.ts';
import { owedWork } from './owed.ts';
import { serviceClock } from '../warehouse/service-clock.ts';

/**
 * lowerBound: some catalogue sizes are unknown (an empty warehouse): only the first pages of
 * those walks are counted. fullCycle: a new cycle, sized from earlier runs. openCycle: what is
 * still owed in the cycle an interrupted run left open. nightly: the next sync is the nightly
 * (a completed full sync exists and no --full).
 */
export type PlanKind = 'lowerBound' | 'fullCycle' | 'openCycle' | 'nightly';

/** fits / exceeds: known; unknown: no quota seen or only a lower bound that fits; uncapped: no cap set. */
export type Fit = 'fits' | 'exceeds' | 'unknown' | 'uncapped';

export interface QuotaSnapshot {
  remaining: number | null;
  limit: number | null;
  resetAt: Date | null;
}

export interface PlanQuota {
  limit: number | null;
  /** Remaining as last seen, or the full limit when the window has reset since. */
  remaining: number | null;
  resetAt: Date | null;
  /** Calls left to other applications: max(reserveCalls, reservePercent of the limit). */
  reserveCalls: number;
  /** remaining − reserve, never below 0; null when remaining is unknown. */
  availableCalls: number | null;
  /** True when the last seen remaining belongs to a window that has reset since. */
  windowReset: boolean;
}

export interface Plan {
  kind: PlanKind;
  objective: Objective;
  cycleStart: string | null;
  cost: Cost;
  /** One fragrance with all enabled datasets and at most 50 reviews. */
  perFragrance: Cost;
  /** Walks (and entities) whose size is unknown: counted at their first page. */
  unknownSizes: string[];
  undiscoveredFragrances: number;
  /**
   * Fragrances whose review total no run has read: one review page each is counted, the pages
   * beyond it are unknown until read. Above 0 the totals are only a lower bound (atLeast).
   */
  unknownReviewTotals: number;
  /** Records in quarantine the nightly asks for again (in the totals): the mirror still lacks them. */
  quarantinedAskedAgain: number;
  /** Of those, per endpoint: its line in the table counts them (labelled there). */
  quarantinedByEndpoint: Partial<Record<EndpointName, number>>;
  /** The totals are a lower bound: unknown walk sizes (lowerBound) or unknown review totals. */
  atLeast: boolean;
  quota: PlanQuota | null;
  fits: { quota: Fit; runBudget: Fit; dayBudget: Fit };
  budget: { maxCentsPerRun: number | null; maxCentsPerDay: number | null; centsToday: number };
  /** Days at the full daily allowance (minus reserve) the plan needs; null when the limit is unknown. */
  daysAtLimit: number | null;
  /** A nightly's refreshes in the sync's order, cut where its cap stops it, and what stays stale. */
  nightly: NightlyRefresh | null;
  /**
   * The clock a nightly's ages were judged on: the service's as last seen (the offset the
   * latest run recorded, and that run), or this machine's (offsetMs null: none recorded).
   */
  clock: { offsetMs: number | null; runId: string | null };
}

export interface PlanOptions {
  /** This machine's clock. */
  now?: Date;
  /**
   * The service's clock, where the caller knows it (a test that moved the simulator's clock
   * since the last run); else `now` plus the offset the last run recorded.
   */
  serviceNow?: Date;
  /** Cents the ledger shows for today (UTC), for the per-day cap. */
  centsToday?: number;
}

export function buildPlan(
  state: SyncState,
  config: Config,
  quota: QuotaSnapshot | null,
  options: PlanOptions = {},
): Plan {
  const now = options.now ?? new Date();
  // A nightly judges ages on the service's clock; the plan sends nothing, so it takes the
  // offset the latest run recorded (sync_run_clocks): "now" as the service's clock last showed.
  const clock = serviceClock(state.clocks);
  const nightly = dueRule(state, config, now).mode === 'nightly';
  const serviceNow = options.serviceNow ?? new Date(now.getTime() + (clock.lastOffsetMs ?? 0));
  const judged = nightly ? serviceNow : now;
  const owed = owedWork(state, config, judged);
  const cost = costOf(owed.counts);
  const unknownSizes = [...owed.unknownWalks];
  if (unknownSizes.includes('fragrances')) {
    if (config.datasets.brands) unknownSizes.push('brands');
    if (config.datasets.perfumers) unknownSizes.push('perfumers');
  }
  const kind: PlanKind =
    unknownSizes.length > 0
      ? 'lowerBound'
      : nightly
        ? 'nightly'
        : state.cycleStart !== null
          ? 'openCycle'
          : 'fullCycle';
  const lowerBound = kind === 'lowerBound' || owed.unknownReviewTotals > 0;
  const planQuota = quota === null ? null : quotaView(quota, config, now);
  const centsToday = options.centsToday ?? 0;
  const { maxCentsPerRun, maxCentsPerDay } = config.budget;
  const usable = planQuota?.limit != null ? Math.max(0, planQuota.limit - planQuota.reserveCalls) : null;
  return {
    kind,
    objective: config.objective,
    cycleStart: state.cycleStart,
    cost,
    perFragrance: perFragranceCost(config.datasets),
    unknownSizes,
    undiscoveredFragrances: owed.undiscoveredFragrances,
    unknownReviewTotals: owed.unknownReviewTotals,
    quarantinedAskedAgain: owed.quarantinedAskedAgain,
    quarantinedByEndpoint: owed.quarantinedByEndpoint,
    atLeast: lowerBound,
    quota: planQuota,
    fits: {
      quota: fit(cost.quotaUnits, planQuota?.availableCalls ?? null, lowerBound, 'unknown'),
      runBudget: fit(cost.cents, maxCentsPerRun, lowerBound, 'uncapped'),
      dayBudget: fit(centsToday + cost.cents, maxCentsPerDay, lowerBound, 'uncapped'),
    },
    budget: { maxCentsPerRun, maxCentsPerDay, centsToday },
    daysAtLimit: usable === null || usable === 0 ? null : Math.ceil(cost.quotaUnits / usable),
    nightly:
      kind === 'nightly'
        ? nightlyRefresh(state, config, judged, cost.cents, capOf(config, centsToday))
        : null,
    clock: { offsetMs: clock.lastOffsetMs, runId: clock.lastRunId },
  };
}

/** The cents a run may spend: the smaller of the run cap and what the day cap leaves today. */
function capOf(config: Config, centsToday: number): number | null {
  const { maxCentsPerRun, maxCentsPerDay } = config.budget;
  const day = maxCentsPerDay === null ? null : Math.max(0, maxCentsPerDay - centsToday);
  if (maxCentsPerRun === null) return day;
  return day === null ? maxCentsPerRun : Math.min(maxCentsPerRun, day);
}

/** A lower bound that exceeds a cap surely exceeds it; one that fits proves nothing. */
function fit(amount: number, cap: number | null, lowerBound: boolean, whenNoCap: Fit): Fit {
  if (cap === null) return whenNoCap;
  if (amount > cap) return 'exceeds';
  return lowerBound ? 'unknown' : 'fits';
}

function quotaView(q: QuotaSnapshot, config: Config, now: Date): PlanQuota {
  const { reserveCalls, reservePercent } = config.quota;
  const reserve = Math.max(reserveCalls, q.limit === null ? 0 : Math.ceil((q.limit * reservePercent) / 100));
  const windowReset = q.resetAt !== null && q.resetAt.getTime() <= now.getTime();
  const remaining = windowReset ? q.limit : q.remaining;
  return {
    limit: q.limit,
    remaining,
    resetAt: q.resetAt,
    reserveCalls: reserve,
    availableCalls: remaining === null ? null : Math.max(0, remaining - reserve),
    windowReset,
  };
}
