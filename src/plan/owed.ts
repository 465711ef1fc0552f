import type { Config } from '../config/index.ts';
import type { ItemState, SyncState, WalkState } from '../warehouse/state-types.ts';
import {
  addCalls,
  fragranceCalls,
  fragranceDataWanted,
  fullNeed,
  pagesFor,
  reviewPages,
  type CallCounts,
  type FragranceNeed,
} from './cost-model.ts';
import { servedPageSizes, walkMark } from './sizes.ts';
import { dueRule } from './freshness.ts';
import type { Dataset } from '../domain/entities.ts';
import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';

/**
 * The calls the next sync owes, from what the warehouse holds, by the sync's own rule
 * (src/plan/freshness.ts dueRule): a full sync owes what its cycle has not fetched (a new
 * cycle: everything, sized by what earlier runs learnt); a nightly owes what the freshness
 * policy says is due, what a signal of an earlier run left owed (sync_items' fetched time
 * cleared), and the walks, which it reads again on every run. New ids the walks will find are
 * not known before them: a nightly's plan prices the items the warehouse knows.
 */
export interface OwedWork {
  counts: CallCounts;
  /** Walks whose size no earlier run learnt: counted at their first page only. */
  unknownWalks: string[];
  /** Fragrances a walk total announces but the warehouse has not seen yet (estimated at full cost). */
  undiscoveredFragrances: number;
  /** Items whose review total is unknown, counted at one review page. */
  unknownReviewTotals: number;
  /** Records in quarantine asked for again (counted in `counts`): the mirror still lacks them. */
  quarantinedAskedAgain: number;
  /** Of those, per endpoint asked again (the one whose answer was quarantined). */
  quarantinedByEndpoint: Partial<Record<EndpointName, number>>;
}

export function owedWork(state: SyncState, config: Config, now: Date = new Date()): OwedWork {
  const d = config.datasets;
  // The sync's own rule (src/plan/freshness.ts): what its frontier will owe, the plan prices.
  const rule = dueRule(state, config, now);
  const due = (item: ItemState, ds: Dataset): boolean =>
    rule.owed(item.entity, ds, item.key, item.fetched[ds]);
  // Walks, as the frontier reads them: a nightly on every run (a walk already done counts
  // for nothing), a full sync once per cycle and again each new UTC day of its cycle.
  const today = `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
  const cycleStart = state.cycleStart ?? now.toISOString();
  // A nightly's walks are all owed whatever their marks' times: `now` is judged on the
  // service's clock, whose offset is known to a second (its Date header), so a walk that
  // ended under a second before would count as done (plan then left out the walks' cents and
  // named more profiles than the capped nightly could buy).
  const since = rule.mode === 'nightly' ? Infinity : Date.parse(today > cycleStart ? today : cycleStart);
  const fresh = (iso: string | undefined, after = since): boolean =>
    iso !== undefined && Date.parse(iso) >= after;
  const walks = new Map<string, WalkState>(state.walks.map((w) => [w.walk, w]));
  const counts: CallCounts = {};
  const unknownWalks: string[] = [];

  /** A paged walk's page marks done this cycle, or since `after` (see walkMark: `<name>@<page>`). */
  const pagesDoneFresh = (name: string, pages: number, after = since): number => {
    let n = 0;
    for (let p = 1; p <= pages; p++) {
      const m = walks.get(`${name}@${p}`);
      if (m && m.done && fresh(m.at, after)) n++;
    }
    return n;
  };

  /** Pages still to read of a walk (0 when it is already done this cycle). */
  const walkPages = (name: string, fallbackSize?: number): number => {
    const w = walkMark(state.walks, name);
    // At the page size the service used, where the walk recorded it.
    const pages = (x: WalkState) => pagesFor(x.total, x.pageSize ?? undefined);
    if (w && fresh(w.at)) {
      if (w.walk !== name) return pages(w) - pagesDoneFresh(name, pages(w));
      return w.done ? 0 : Math.max(0, pages(w) - w.page);
    }
    if (w) return pages(w);
    if (fallbackSize !== undefined) return pagesFor(fallbackSize);
    unknownWalks.push(name);
    return 1;
  };
  const walkDone = (name: string, after = since): boolean => {
    const w = walkMark(state.walks, name);
    if (!w || !fresh(w.at, after)) return false;
    if (w.walk === name) return w.done;
    const pages = pagesFor(w.total, w.pageSize ?? undefined);
    return pagesDoneFresh(name, pages, after) >= pages;
  };
  // After a list read whole (its last walk, in any run): every entry it named is known
  // (sync_items records an item when a walk names it), so a total above the items counts
  // entries named twice (a legal listing), not items to find; a nightly and a new full cycle
  // alike. Fragrances released since are unknown to both ways of counting.
  const namedAll = (name: string): boolean => walkDone(name, -Infinity);
  const live = (entity: ItemState['entity']): ItemState[] =>
    state.items.filter((i) => i.entity === entity && !i.removed);

  let undiscoveredFragrances = 0;
  let unknownReviewTotals = 0;
  // A service that serves review pages smaller than asked: every page of a total (summary.ts's
  // minimum reads the same walk marks).
  const reviewPageSize = servedPageSizes(state.walks).reviews;
  if (fragranceDataWanted(d)) {
    addCalls(counts, { listFragrances: walkPages('fragrances') });
    const fragrances = live('fragrance');
    for (const item of fragrances) {
      const total = state.reviewTotals.get(item.key);
      const wantsReviews = d.reviews.mode !== 'none' && due(item, 'reviews');
      if (wantsReviews && total === undefined) unknownReviewTotals++;
      // A nightly reads page 1 (the new total, up to 50 new reviews); a full sync every page
      // of the total it last saw (the sync's rule, src/sync/owed-jobs.ts), one if none.
      const pages =
        rule.mode === 'full' && total !== undefined ? reviewPages(total, d.reviews, reviewPageSize) : 1;
      const need: FragranceNeed = {
        profile: d.fragrances && due(item, 'profile'),
        similar: d.similar && due(item, 'similar'),
        wearing: d.wearing && due(item, 'wearing'),
        reviewPages: wantsReviews ? pages : 0,
        reviewDigest: d.reviewDigest && due(item, 'reviewDigest'),
      };
      const known = { reviewTotal: total, similarCount: state.similarCounts.get(item.key) };
      addCalls(counts, fragranceCalls(need, known, config.objective));
    }
    const announced = walkMark(state.walks, 'fragrances')?.total;
    if (announced !== undefined && !namedAll('fragrances') && announced > fragrances.length) {
      undiscoveredFragrances = announced - fragrances.length;
      addCalls(counts, fragranceCalls(fullNeed(d, 1), {}, config.objective), undiscoveredFragrances);
      unknownReviewTotals += d.reviews.mode === 'none' ? 0 : undiscoveredFragrances;
    }
  }

  if (d.brands) {
    for (const item of live('brand')) {
      if (due(item, 'profile')) addCalls(counts, { getBrand: 1 });
      if (!due(item, 'catalogue')) continue;
      const size = state.brandCatalogueSizes.get(item.key) ?? 0;
      addCalls(counts, { getBrandFragrances: walkPages(`brand:${item.key}`, size) });
    }
  }
  if (d.perfumers) {
    addCalls(counts, { getPerfumer: live('perfumer').filter((i) => due(i, 'profile')).length });
  }
  if (d.notes) {
    const notes = live('note');
    addCalls(counts, { listNotes: walkPages('notes') });
    addCalls(counts, { getNote: notes.filter((i) => due(i, 'profile')).length });
    const announced = walkMark(state.walks, 'notes')?.total;
    if (announced !== undefined && !namedAll('notes') && announced > notes.length) {
      addCalls(counts, { getNote: announced - notes.length });
    }
  }
  if (d.accords) addCalls(counts, { listAccords: walkPages('accords') });
  if (d.charts) {
    // The chart list is a single call; its total is the number of charts.
    if (!walkDone('charts')) addCalls(counts, { listCharts: 1 });
    const charts = live('chart');
    addCalls(counts, { getChart: charts.filter((i) => due(i, 'profile')).length });
    const announced = walks.get('charts')?.total;
    if (announced !== undefined && !walkDone('charts') && announced > charts.length) {
      addCalls(counts, { getChart: announced - charts.length });
    } else if (announced === undefined && charts.length === 0) unknownWalks.push('charts');
  }
  if (d.trending && !walkDone('trending')) addCalls(counts, { trending: 1 });
  // Of the records in quarantine the nightly asks for again (sync-state.ts: live items only,
  // their fetch forgotten in `items`), those priced above: a dataset this config fetches that
  // the rule owes. Counted from the few records, without a map of every item.
  const askedAgain = (state.quarantineOwed ?? []).filter(
    (q) => fetches(config, q.entity, q.dataset) && rule.owed(q.entity, q.dataset, q.key, undefined),
  );
  const quarantinedByEndpoint: Partial<Record<EndpointName, number>> = {};
  for (const q of askedAgain) {
    const name = ENDPOINT_NAMES.find((n) => ENDPOINTS[n].template === q.endpoint);
    if (name) quarantinedByEndpoint[name] = (quarantinedByEndpoint[name] ?? 0) + 1;
  }
  return {
    counts,
    unknownWalks,
    undiscoveredFragrances,
    unknownReviewTotals,
    quarantinedAskedAgain: askedAgain.length,
    quarantinedByEndpoint,
  };
}

/** Whether the config fetches this dataset of this entity (what the walks above price). */
function fetches(config: Config, entity: ItemState['entity'], ds: Dataset): boolean {
  const d = config.datasets;
  if (entity !== 'fragrance')
    return { brand: d.brands, perfumer: d.perfumers, note: d.notes, chart: d.charts, accord: d.accords }[
      entity
    ];
  const wanted: Partial<Record<Dataset, boolean>> = {
    profile: d.fragrances,
    similar: d.similar,
    wearing: d.wearing,
    reviews: d.reviews.mode !== 'none',
    reviewDigest: d.reviewDigest,
  };
  return wanted[ds] ?? false;
}
