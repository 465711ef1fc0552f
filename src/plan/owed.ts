import type { Config } from '../config/index.ts';
import type { ItemState, SyncState, WalkState } from '../warehouse/state-types.ts';
import {
  addCalls,
  fragranceCalls,
  fragranceDataWanted,
  fullNeed,
  pagesFor,
  type CallCounts,
  type FragranceNeed,
} from './cost-model.ts';
import { walkMark } from './sizes.ts';

/**
 * The calls still owed in the current cycle, from what the warehouse holds. With a cycle
 * open, anything fetched (or walked) since its start is done; without one, a new cycle
 * begins and everything is owed again, sized by what earlier runs learnt.
 */
export interface OwedWork {
  counts: CallCounts;
  /** Walks whose size no earlier run learnt: counted at their first page only. */
  unknownWalks: string[];
  /** Fragrances a walk total announces but the warehouse has not seen yet (estimated at full cost). */
  undiscoveredFragrances: number;
  /** Items whose review total is unknown, counted at one review page. */
  unknownReviewTotals: number;
}

export function owedWork(state: SyncState, config: Config): OwedWork {
  const d = config.datasets;
  const since = state.cycleStart === null ? null : Date.parse(state.cycleStart);
  const fresh = (iso: string | undefined): boolean =>
    since !== null && iso !== undefined && Date.parse(iso) >= since;
  const walks = new Map<string, WalkState>(state.walks.map((w) => [w.walk, w]));
  const counts: CallCounts = {};
  const unknownWalks: string[] = [];

  /** A paged walk's page marks done this cycle (see walkMark: `<name>@<page>`). */
  const pagesDoneFresh = (name: string, pages: number): number => {
    let n = 0;
    for (let p = 1; p <= pages; p++) {
      const m = walks.get(`${name}@${p}`);
      if (m && m.done && fresh(m.at)) n++;
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
  const walkDone = (name: string): boolean => {
    const w = walkMark(state.walks, name);
    if (!w || !fresh(w.at)) return false;
    if (w.walk === name) return w.done;
    const pages = pagesFor(w.total, w.pageSize ?? undefined);
    return pagesDoneFresh(name, pages) >= pages;
  };
  const live = (entity: ItemState['entity']): ItemState[] =>
    state.items.filter((i) => i.entity === entity && !i.removed);

  let undiscoveredFragrances = 0;
  let unknownReviewTotals = 0;
  if (fragranceDataWanted(d)) {
    addCalls(counts, { listFragrances: walkPages('fragrances') });
    const fragrances = live('fragrance');
    for (const item of fragrances) {
      const total = state.reviewTotals.get(item.key);
      const wantsReviews = d.reviews.mode !== 'none' && !fresh(item.fetched.reviews);
      if (wantsReviews && total === undefined) unknownReviewTotals++;
      const need: FragranceNeed = {
        profile: d.fragrances && !fresh(item.fetched.profile),
        similar: d.similar && !fresh(item.fetched.similar),
        wearing: d.wearing && !fresh(item.fetched.wearing),
        // Incremental: one page tells the new total, and holds up to 50 new reviews.
        reviewPages: wantsReviews ? 1 : 0,
        reviewDigest: d.reviewDigest && !fresh(item.fetched.reviewDigest),
      };
      const known = { reviewTotal: total, similarCount: state.similarCounts.get(item.key) };
      addCalls(counts, fragranceCalls(need, known, config.objective));
    }
    const announced = walkMark(state.walks, 'fragrances')?.total;
    if (announced !== undefined && !walkDone('fragrances') && announced > fragrances.length) {
      undiscoveredFragrances = announced - fragrances.length;
      addCalls(counts, fragranceCalls(fullNeed(d, 1), {}, config.objective), undiscoveredFragrances);
      unknownReviewTotals += d.reviews.mode === 'none' ? 0 : undiscoveredFragrances;
    }
  }

  if (d.brands) {
    for (const item of live('brand')) {
      if (!fresh(item.fetched.profile)) addCalls(counts, { getBrand: 1 });
      if (fresh(item.fetched.catalogue)) continue;
      const size = state.brandCatalogueSizes.get(item.key) ?? 0;
      addCalls(counts, { getBrandFragrances: walkPages(`brand:${item.key}`, size) });
    }
  }
  if (d.perfumers) {
    addCalls(counts, { getPerfumer: live('perfumer').filter((i) => !fresh(i.fetched.profile)).length });
  }
  if (d.notes) {
    const notes = live('note');
    addCalls(counts, { listNotes: walkPages('notes') });
    addCalls(counts, { getNote: notes.filter((i) => !fresh(i.fetched.profile)).length });
    const announced = walkMark(state.walks, 'notes')?.total;
    if (announced !== undefined && !walkDone('notes') && announced > notes.length) {
      addCalls(counts, { getNote: announced - notes.length });
    }
  }
  if (d.accords) addCalls(counts, { listAccords: walkPages('accords') });
  if (d.charts) {
    // The chart list is a single call; its total is the number of charts.
    if (!walkDone('charts')) addCalls(counts, { listCharts: 1 });
    const charts = live('chart');
    addCalls(counts, { getChart: charts.filter((i) => !fresh(i.fetched.profile)).length });
    const announced = walks.get('charts')?.total;
    if (announced !== undefined && !walkDone('charts') && announced > charts.length) {
      addCalls(counts, { getChart: announced - charts.length });
    } else if (announced === undefined && charts.length === 0) unknownWalks.push('charts');
  }
  if (d.trending && !walkDone('trending')) addCalls(counts, { trending: 1 });
  return { counts, unknownWalks, undiscoveredFragrances, unknownReviewTotals };
}
