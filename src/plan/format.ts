import { ENDPOINT_NAMES, ENDPOINTS } from '../domain/endpoints.ts';
import type { Cost } from './cost-model.ts';
import type { NightlyRefresh } from './nightly-order.ts';
import type { Fit, Plan } from './plan.ts';

const TITLES: Record<Plan['kind'], string> = {
  lowerBound: 'LOWER BOUND: catalogue sizes not known yet',
  fullCycle: 'next full cycle, sized from the last runs',
  openCycle: 'work still owed in the open cycle',
  nightly:
    'the nightly: what is due by the freshness policy or left owed, and the walks (new items they find come on top)',
};

/** The plan as an aligned table (endpoint, calls, cents), totals, then one line per limit. */
export function formatPlan(plan: Plan): string {
  const rows: [string, string, string][] = [['endpoint', 'calls', 'cents']];
  /** The table's lines that ask records in quarantine again, by row: labelled after the cents. */
  const labels = new Map<number, string>();
  for (const name of ENDPOINT_NAMES) {
    const line = plan.cost.byEndpoint[name];
    if (!line) continue;
    const e = ENDPOINTS[name];
    const q = plan.quarantinedByEndpoint[name] ?? 0;
    if (q > 0) labels.set(rows.length, `  ${askedAgain(q)}`);
    rows.push([`${e.method.padEnd(4)} ${e.template}`, String(line.calls), String(line.cents)]);
  }
  const totalLabel = plan.atLeast ? 'total (at least)' : 'total';
  rows.push([totalLabel, String(plan.cost.calls), String(plan.cost.cents)]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  const w2 = Math.max(...rows.map((r) => r[2].length));
  const fmt = ([a, b, c]: [string, string, string]) =>
    `  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c.padStart(w2)}`;
  const rule = `  ${'-'.repeat(w0 + w1 + w2 + 4)}`;
  const table = rows.map((r, i) => fmt(r) + (labels.get(i) ?? ''));
  table.splice(1, 0, rule);
  table.splice(table.length - 1, 0, rule);

  const out = [`fragsync plan: ${TITLES[plan.kind]} (objective: ${plan.objective})`];
  if (plan.cycleStart) out.push(`  cycle open since ${plan.cycleStart}`);
  if (plan.kind === 'lowerBound') {
    out.push(
      `  unknown sizes: ${plan.unknownSizes.join(', ')}; only their first pages are counted below,`,
      '  the rest depends on what those pages announce.',
    );
  }
  if (plan.unknownReviewTotals > 0) {
    out.push(
      `  at least: ${plan.unknownReviewTotals} fragrances' review totals are not known yet; one review page each`,
      '  is counted, the pages beyond the first are unknown until read.',
    );
  }
  out.push('', ...table, '');
  out.push(`quota units: ${plan.cost.quotaUnits}${plan.atLeast ? ' (at least)' : ''}`);
  out.push(`per fragrance (<= 50 reviews): ${describe(plan.perFragrance)}`);
  if (plan.undiscoveredFragrances > 0) {
    out.push(`includes ${plan.undiscoveredFragrances} fragrances announced by the list but not seen yet`);
  }
  const q = plan.quarantinedAskedAgain;
  if (q > 0)
    out.push(
      `includes ${q} record${q === 1 ? '' : 's'} in quarantine asked again (\`fragsync quarantine\` lists them)`,
    );
  out.push(quotaLine(plan), runLine(plan), dayLine(plan));
  if (plan.nightly) out.push('', clockLine(plan.clock), ...CLOCK_UNSEEN, ...nightlyLines(plan.nightly));
  if (plan.daysAtLimit !== null && plan.daysAtLimit > 1) {
    out.push(`at the full daily allowance this takes about ${plan.daysAtLimit} days`);
  }
  return out.join('\n');
}

/**
 * What the clock line cannot say: the service's clock may have moved since (a simulator's day
 * jump moves it a day, and a plan run right after one said "0 of 150 older"), and only an
 * answer would show it.
 */
const CLOCK_UNSEEN = [
  "  (the plan sends no request, so it cannot see the service's clock move since: after a jump such",
  "  as the simulator's `POST /_sim/advance-day`, the sync judges ages by the new day and may",
  '  find more due)',
];

/** Which clock the ages below are on: the plan sends no request, so the one last seen. */
function clockLine(clock: Plan['clock']): string {
  if (clock.offsetMs === null)
    return "ages on this machine's clock (no run has recorded the service's clock yet)";
  const ms = Math.abs(clock.offsetMs);
  if (ms < 60_000)
    return `ages on the service's clock as run ${clock.runId} last saw it (the same as this machine's)`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const way = clock.offsetMs > 0 ? 'ahead of' : 'behind';
  return `ages on the service's clock as run ${clock.runId} last saw it (${h}h${String(m).padStart(2, '0')}m ${way} this machine's)`;
}

/** Names shown per dataset; the rest is counted. */
const SHOWN = 8;

/** What the nightly refreshes per dataset (in its order) and how stale each dataset stays. */
function nightlyLines(n: NightlyRefresh): string[] {
  const out = [
    'refreshes, in the order the sync pays for them (charted and trending, then age x popularity):',
  ];
  if (n.refresh.length === 0) out.push('  nothing is due');
  for (const r of n.refresh) {
    const more = r.keys.length > SHOWN ? `, ... (${r.keys.length - SHOWN} more)` : '';
    const again = r.quarantined > 0 ? ` ${askedAgain(r.quarantined)}` : '';
    out.push(
      `  ${r.entity} ${r.dataset}: ${r.keys.length} (${r.keys.slice(0, SHOWN).join(', ')}${more})${again}`,
    );
  }
  if (n.budgetCents !== null) {
    const verdict = n.cut ? 'stops it before every due item is refreshed' : 'leaves room for all of it';
    out.push(`  the cap (${n.budgetCents} cents after the walks, new items and signals) ${verdict}`);
  }
  out.push('after it (dataset: items older than their policy, oldest age):');
  for (const a of n.after) {
    const oldest =
      a.oldestAgeHours === null
        ? '-'
        : a.oldestAgeHours === Infinity
          ? 'never fetched'
          : `${a.oldestAgeHours.toFixed(1)} h`;
    out.push(
      `  ${a.entity} ${a.dataset} (max ${a.maxAgeHours} h): ${a.overPolicy} of ${a.items} older, oldest ${oldest}`,
    );
  }
  return out;
}

function describe(cost: Cost): string {
  const parts = ENDPOINT_NAMES.filter((n) => cost.byEndpoint[n]).map(
    (n) => `${ENDPOINTS[n].template} x${cost.byEndpoint[n]?.calls}`,
  );
  return `${cost.calls} calls, ${cost.cents} cents (${parts.join(', ')})`;
}

function verdict(fit: Fit): string {
  return { fits: 'fits', exceeds: 'DOES NOT FIT', unknown: 'unknown', uncapped: 'no cap' }[fit];
}

/**
 * A verdict on a cost that is a lower bound and fits (fit 'unknown' beside a known cap or
 * quota): what is counted fits, the rest is not known yet. Said so, with "at least" on the
 * amount, instead of a bare "unknown" beside two figures.
 */
function verdictOn(plan: Plan, fit: Fit, amount: number): { verdict: string; amount: string } {
  if (fit === 'unknown') return { verdict: 'fits so far (a lower bound)', amount: `at least ${amount}` };
  return { verdict: verdict(fit), amount: plan.atLeast ? `at least ${amount}` : String(amount) };
}

function quotaLine(plan: Plan): string {
  const q = plan.quota;
  if (!q || q.availableCalls === null) {
    return `quota: ${verdict(plan.fits.quota)} (no X-RateLimit-Remaining seen${q?.windowReset ? ' since the last reset' : ''})`;
  }
  const seen = q.windowReset ? `limit ${q.limit} after the reset` : `remaining ${q.remaining}`;
  const v = verdictOn(plan, plan.fits.quota, plan.cost.quotaUnits);
  return `quota: ${v.verdict}: ${v.amount} calls vs ${q.availableCalls} available (${seen} - reserve ${q.reserveCalls})`;
}

function runLine(plan: Plan): string {
  const cap = plan.budget.maxCentsPerRun;
  if (cap === null) return 'run budget: no cap';
  const v = verdictOn(plan, plan.fits.runBudget, plan.cost.cents);
  return `run budget: ${v.verdict}: ${v.amount} cents vs cap ${cap}`;
}

function dayLine(plan: Plan): string {
  const cap = plan.budget.maxCentsPerDay;
  if (cap === null) return 'day budget: no cap';
  const spent = plan.budget.centsToday;
  const v = verdictOn(plan, plan.fits.dayBudget, plan.cost.cents);
  return `day budget: ${v.verdict}: ${spent} spent today + ${v.amount} cents vs cap ${cap}`;
}

/** The label of a line whose calls ask `n` records in quarantine again (the table's, the refreshes'). */
function askedAgain(n: number): string {
  return `(${n} of them: quarantined record${n === 1 ? '' : 's'} asked again)`;
}
