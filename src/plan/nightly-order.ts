import type { Config } from '../config/index.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import type { ItemState, SyncState } from '../warehouse/state-types.ts';
import { enrichPays, pagesFor, type FragranceNeed } from './cost-model.ts';
import { nightlyRule, policyRows, type DueRule } from './freshness.ts';
import { ageMs, compareDue, datasetsOf, dueScore, popularity, type DueItem } from './priority.ts';
import { serviceClock } from '../warehouse/service-clock.ts';
import { HOUR_MS } from '../util/calendar-day.ts';

/**
 * What a nightly refreshes and how stale it leaves the warehouse (issue 15, item 6), by the
 * sync's own order (src/plan/priority.ts; src/sync/rank.ts applies it): the walks, new items
 * and signals first (`firstCents`, from the plan's total), then the charted and trending
 * fragrances, then the rest by age × popularity. Under a cap the governor refuses the first
 * call that does not fit and the run stops there; this walks the same calls in the same order
 * (an item's profile, then its similar list, wearing stats, review page, digest; a brand's
 * profile, then its catalogue pages) and stops at the same one. Exact with one job at a time;
 * with several in flight a few calls around the cut may go either way.
 */
export interface NightlyRefresh {
  /** The cents the cut was made at (the smaller cap, less what comes first); null: no cap. */
  budgetCents: number | null;
  /** The cap stops the run before every due item is refreshed. */
  cut: boolean;
  /**
   * Per entity and dataset, the keys the nightly refreshes, in order; `quarantined`: how many
   * of them are records in quarantine asked again (sync-state.ts quarantineOwed).
   */
  refresh: { entity: EntityKind; dataset: Dataset; keys: string[]; quarantined: number }[];
  /** Per dataset under the policy: live items, those still older than it after the run, the oldest age. */
  after: {
    entity: EntityKind;
    dataset: Dataset;
    maxAgeHours: number;
    items: number;
    overPolicy: number;
    oldestAgeHours: number | null;
  }[];
}

interface Call {
  dataset: Dataset;
  cents: number;
}

/** The calls one item's due datasets cost, in the order the sync makes them. */
function itemCalls(state: SyncState, config: Config, item: ItemState, due: Set<Dataset>): Call[] {
  const c = (endpoint: EndpointName) => ENDPOINTS[endpoint].costCents;
  const calls: Call[] = [];
  if (item.entity === 'fragrance') {
    if (due.has('profile')) calls.push({ dataset: 'profile', cents: c('getFragrance') });
    const need: FragranceNeed = {
      profile: false,
      similar: due.has('similar'),
      wearing: false,
      reviewPages: due.has('reviews') ? 1 : 0,
      reviewDigest: false,
    };
    const known = {
      reviewTotal: state.reviewTotals.get(item.key),
      similarCount: state.similarCounts.get(item.key),
    };
    if (enrichPays(need, known, config.objective)) {
      calls.push({ dataset: 'similar', cents: c('enrich') });
      due.delete('reviews');
    } else if (due.has('similar')) calls.push({ dataset: 'similar', cents: c('getSimilar') });
    if (due.has('wearing')) calls.push({ dataset: 'wearing', cents: c('getWearingStats') });
    if (due.has('reviews')) calls.push({ dataset: 'reviews', cents: c('getReviews') });
    if (due.has('reviewDigest')) calls.push({ dataset: 'reviewDigest', cents: c('getReviewDigest') });
  } else if (item.entity === 'brand') {
    if (due.has('profile')) calls.push({ dataset: 'profile', cents: c('getBrand') });
    const pages = pagesFor(state.brandCatalogueSizes.get(item.key) ?? 0);
    if (due.has('catalogue'))
      for (let p = 0; p < pages; p++) calls.push({ dataset: 'catalogue', cents: c('getBrandFragrances') });
  } else if (due.has('profile')) {
    calls.push({ dataset: 'profile', cents: item.entity === 'perfumer' ? c('getPerfumer') : c('getNote') });
  }
  return calls;
}

/**
 * The nightly's refreshes under the smaller of `capCents` (null: none), after `firstCents`
 * of walks, new items and signals, and what they leave stale, as of `now`.
 */
export function nightlyRefresh(
  state: SyncState,
  config: Config,
  now: Date,
  totalCents: number,
  capCents: number | null,
): NightlyRefresh {
  const rule = nightlyRule(config.freshness, now, serviceClock(state.clocks));
  const charted = state.charted ?? new Set<string>();
  const ranked: { item: ItemState; rank: DueItem; calls: Call[] }[] = [];
  for (const item of state.items) {
    // Removed items are not owed; never-fetched ones are new and go first, unranked.
    if (item.removed || item.fetched.profile === undefined || item.entity === 'chart') continue;
    const datasets = datasetsOf(config.datasets, item.entity);
    const score = dueScore(item, datasets, rule, now, popularity(state, item.entity, item.key));
    if (score === null) continue;
    const due = new Set(datasets.filter((ds) => rule.owed(item.entity, ds, item.key, item.fetched[ds])));
    const hot = item.entity === 'fragrance' && charted.has(item.key);
    ranked.push({
      item,
      rank: { entity: item.entity, key: item.key, hot, score },
      calls: itemCalls(state, config, item, due),
    });
  }
  ranked.sort((a, b) => compareDue(a.rank, b.rank));
  const rankedCents = ranked.reduce((sum, r) => sum + r.calls.reduce((s, c) => s + c.cents, 0), 0);
  const budgetCents = capCents === null ? null : Math.max(0, capCents - (totalCents - rankedCents));
  let left = budgetCents ?? Number.POSITIVE_INFINITY;
  let cut = false;
  const refreshed = new Map<string, string[]>();
  const done = new Set<string>();
  outer: for (const { item, calls } of ranked) {
    for (const [i, call] of calls.entries()) {
      if (call.cents > left) {
        cut = true;
        break outer;
      }
      left -= call.cents;
      // A dataset of several calls (catalogue pages) is refreshed with its last one.
      if (calls[i + 1]?.dataset === call.dataset) continue;
      const id = `${item.entity}|${call.dataset}`;
      refreshed.set(id, [...(refreshed.get(id) ?? []), item.key]);
      done.add(`${id}|${item.key}`);
    }
  }
  const owedAgain = new Set((state.quarantineOwed ?? []).map((q) => `${q.entity}|${q.dataset}|${q.key}`));
  const refresh = [...refreshed.entries()].map(([id, keys]) => {
    const [entity, dataset] = id.split('|') as [EntityKind, Dataset];
    return { entity, dataset, keys, quarantined: keys.filter((k) => owedAgain.has(`${id}|${k}`)).length };
  });
  // New items (never fetched) come before the ranked ones: paid when the cap leaves anything.
  const newPaid = budgetCents === null || budgetCents > 0;
  return { budgetCents, cut, refresh, after: staleAfter(state, config, rule, now, done, newPaid) };
}

/** Per policy row: live items, those older than the policy unless refreshed (`done`), the oldest age left. */
function staleAfter(
  state: SyncState,
  config: Config,
  rule: DueRule,
  now: Date,
  done: Set<string>,
  newPaid: boolean,
): NightlyRefresh['after'] {
  return policyRows(config)
    .filter((p) => p.entity !== 'chart')
    .map(({ entity, dataset, maxAgeHours }) => {
      let items = 0;
      let overPolicy = 0;
      let oldest: number | null = null;
      for (const item of state.items) {
        if (item.entity !== entity || item.removed) continue;
        items++;
        if (done.has(`${entity}|${dataset}|${item.key}`)) continue;
        if (newPaid && item.fetched.profile === undefined) continue;
        const at = item.fetched[dataset];
        const age = at === undefined ? Number.POSITIVE_INFINITY : ageMs(rule, at, now) / HOUR_MS;
        if (age > maxAgeHours) overPolicy++;
        if (oldest === null || age > oldest) oldest = age;
      }
      return { entity, dataset, maxAgeHours, items, overPolicy, oldestAgeHours: oldest };
    });
}
