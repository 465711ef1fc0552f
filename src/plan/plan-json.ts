import { ENDPOINT_NAMES, ENDPOINTS } from '../domain/endpoints.ts';
import type { Cost } from './cost-model.ts';
import type { Plan } from './plan.ts';

/**
 * `fragsync plan --json`: what formatPlan prints, as one object with stable camelCase keys
 * (docs/cli.md "Machine output"). Units are in the names (calls, cents, hours, ms); times are
 * ISO 8601 UTC; a figure the plan does not know (no quota seen, no cap) is null.
 */
export function planJson(plan: Plan): string {
  const q = plan.quota;
  const n = plan.nightly;
  return JSON.stringify({
    kind: plan.kind,
    objective: plan.objective,
    cycleStart: plan.cycleStart,
    // The totals are a lower bound (unknown walk sizes or review totals).
    atLeast: plan.atLeast,
    byEndpoint: byEndpoint(plan.cost, plan.quarantinedByEndpoint),
    totalCalls: plan.cost.calls,
    totalCents: plan.cost.cents,
    quotaUnits: plan.cost.quotaUnits,
    perFragrance: { calls: plan.perFragrance.calls, cents: plan.perFragrance.cents },
    unknownSizes: plan.unknownSizes,
    undiscoveredFragrances: plan.undiscoveredFragrances,
    unknownReviewTotals: plan.unknownReviewTotals,
    quarantinedRecordsAskedAgain: plan.quarantinedAskedAgain,
    quota: q
      ? {
          limitCalls: q.limit,
          remainingCalls: q.remaining,
          resetAt: q.resetAt?.toISOString() ?? null,
          reserveCalls: q.reserveCalls,
          availableCalls: q.availableCalls,
          windowReset: q.windowReset,
        }
      : null,
    // fits, exceeds, unknown (no quota seen, or a lower bound that fits) or uncapped.
    fits: plan.fits,
    maxCentsPerRun: plan.budget.maxCentsPerRun,
    maxCentsPerDay: plan.budget.maxCentsPerDay,
    centsToday: plan.budget.centsToday,
    daysAtLimit: plan.daysAtLimit,
    clock: { offsetMs: plan.clock.offsetMs, runId: plan.clock.runId },
    nightly: n
      ? {
          budgetCents: n.budgetCents,
          cut: n.cut,
          refresh: n.refresh.map((r) => ({
            entity: r.entity,
            dataset: r.dataset,
            count: r.keys.length,
            keys: r.keys,
            // Of count, records in quarantine asked again (the text labels the line with them).
            quarantinedAskedAgain: r.quarantined,
          })),
          after: n.after.map((a) => ({
            entity: a.entity,
            dataset: a.dataset,
            maxAgeHours: a.maxAgeHours,
            items: a.items,
            overPolicy: a.overPolicy,
            // Infinity (the text's "never fetched") is not JSON: its own key says it.
            oldestAgeHours: a.oldestAgeHours === Infinity ? null : a.oldestAgeHours,
            neverFetched: a.oldestAgeHours === Infinity,
          })),
        }
      : null,
  });
}

interface EndpointLine {
  method: string;
  path: string;
  calls: number;
  cents: number;
  /** Of `calls`, those asking records in quarantine again (the text labels its line with them). */
  quarantinedAskedAgain: number;
}

/** The table's rows: calls and cents per endpoint, with its method and path, in the table's order. */
function byEndpoint(cost: Cost, quarantined: Plan['quarantinedByEndpoint']): Record<string, EndpointLine> {
  const out: Record<string, EndpointLine> = {};
  for (const name of ENDPOINT_NAMES) {
    const line = cost.byEndpoint[name];
    if (!line) continue;
    const e = ENDPOINTS[name];
    out[name] = {
      method: e.method,
      path: e.template,
      calls: line.calls,
      cents: line.cents,
      quarantinedAskedAgain: quarantined[name] ?? 0,
    };
  }
  return out;
}
