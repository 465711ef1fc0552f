import { ENDPOINTS, MAX_PAGE_SIZE, QUOTA_UNITS_PER_CALL, type EndpointName } from '../domain/endpoints.ts';
import type { DatasetsConfig, Objective } from '../config/index.ts';

/**
 * What a sync costs, from the price table (src/domain/endpoints.ts) and the spec's page sizes.
 * Pure functions, no I/O. The derivation and the formula of the minimum are in
 * docs/cost-model.md; keep the two in step.
 */

export type CallCounts = Partial<Record<EndpointName, number>>;

export interface Cost {
  calls: number;
  cents: number;
  /** Daily quota units: every call, batch and enrich included, is one. */
  quotaUnits: number;
  byEndpoint: Partial<Record<EndpointName, { calls: number; cents: number }>>;
}

export interface CatalogueSizes {
  fragrances: number;
  /** pagination.total of each fragrance's reviews, or directly the sum of their review pages. */
  reviewTotals: number[] | { pages: number };
  /**
   * Entries of each brand's catalogue listing: its pagination.total where known (a listing
   * may name an entry twice, and its pages follow the total), else its members.
   */
  brands: number[];
  perfumers: number;
  notes: number;
  accords: number;
  charts: number;
  /** Length of each fragrance's similar list (limit 50), same order as reviewTotals; lets enrich be judged. */
  similarCounts?: number[];
  /** Page sizes the service used where it served fewer than asked (`pagination.limit`); 50 otherwise. */
  pageSizes?: Partial<Record<PagedWalk, number>>;
  /**
   * pagination.total of the fragrance, note and accord lists, where known: a listing may name
   * an entry twice (a legal reading), so it can hold more entries than there are items, and a
   * full walk reads every page its total makes. Absent or smaller: the item counts above.
   */
  listed?: Partial<Record<ListedWalk, number>>;
}

export type ListedWalk = 'fragrances' | 'notes' | 'accords';

export type PagedWalk = 'fragrances' | 'reviews' | 'brands' | 'notes' | 'accords';

/** What one fragrance still needs this cycle. */
export interface FragranceNeed {
  profile: boolean;
  similar: boolean;
  wearing: boolean;
  /** Review pages (limit 50) to read; 0: none. */
  reviewPages: number;
  reviewDigest: boolean;
}

/** What the previous sync learnt about a fragrance. */
export interface FragranceKnown {
  similarCount?: number;
  reviewTotal?: number;
}

const PAGE = MAX_PAGE_SIZE.listFragrances;
const ENRICH_CAP = MAX_PAGE_SIZE.enrichLimit;

/** Pages of a list walk: at least one, because only a page tells the total (even when it is 0). */
export function pagesFor(items: number, pageSize: number = PAGE): number {
  return Math.max(1, Math.ceil(items / pageSize));
}

/** Review pages for a full read of one fragrance whose total is `total`. */
export function reviewPages(
  total: number,
  reviews: DatasetsConfig['reviews'],
  pageSize: number = MAX_PAGE_SIZE.getReviews,
): number {
  if (reviews.mode === 'none') return 0;
  const wanted = reviews.mode === 'newest' ? Math.min(total, reviews.newest) : total;
  return pagesFor(wanted, pageSize);
}

/**
 * Enrich (10c, 1 unit) returns at most 20 similar entries and 20 reviews and no totals, so it
 * can stand in for similar + one review page only when both lists are known to fit: fewer than
 * 20 similar (exactly 20 might be truncated) and at most 20 reviews wanted. It still lacks
 * year/score/perfumer, so the profile stays. It saves one quota unit for 7 extra cents: only
 * ever chosen when the objective is calls.
 */
export function enrichPays(need: FragranceNeed, known: FragranceKnown, objective: Objective): boolean {
  if (objective !== 'calls' || !need.similar || need.reviewPages !== 1) return false;
  if (known.similarCount === undefined || known.similarCount >= ENRICH_CAP) return false;
  return known.reviewTotal !== undefined && known.reviewTotal <= ENRICH_CAP;
}

export function fragranceCalls(need: FragranceNeed, known: FragranceKnown, objective: Objective): CallCounts {
  const calls: CallCounts = {};
  if (need.profile) calls.getFragrance = 1;
  if (need.wearing) calls.getWearingStats = 1;
  if (need.reviewDigest) calls.getReviewDigest = 1;
  if (enrichPays(need, known, objective)) {
    calls.enrich = 1;
    return calls;
  }
  if (need.similar) calls.getSimilar = 1;
  if (need.reviewPages > 0) calls.getReviews = need.reviewPages;
  return calls;
}

export function addCalls(into: CallCounts, more: CallCounts, times = 1): CallCounts {
  for (const [name, n] of Object.entries(more) as [EndpointName, number][]) {
    if (n * times > 0) into[name] = (into[name] ?? 0) + n * times;
  }
  return into;
}

export function costOf(counts: CallCounts): Cost {
  const cost: Cost = { calls: 0, cents: 0, quotaUnits: 0, byEndpoint: {} };
  for (const [name, calls] of Object.entries(counts) as [EndpointName, number][]) {
    if (calls <= 0) continue;
    const cents = calls * ENDPOINTS[name].costCents;
    cost.byEndpoint[name] = { calls, cents };
    cost.calls += calls;
    cost.cents += cents;
    cost.quotaUnits += calls * QUOTA_UNITS_PER_CALL;
  }
  return cost;
}

export function fragranceDataWanted(d: DatasetsConfig): boolean {
  return d.fragrances || d.similar || d.wearing || d.reviews.mode !== 'none' || d.reviewDigest;
}

export function fullNeed(d: DatasetsConfig, pages: number): FragranceNeed {
  return {
    profile: d.fragrances,
    similar: d.similar,
    wearing: d.wearing,
    reviewPages: d.reviews.mode === 'none' ? 0 : pages,
    reviewDigest: d.reviewDigest,
  };
}

/** One fragrance with at most 50 reviews and nothing known about it (so no enrich). */
export function perFragranceCost(datasets: DatasetsConfig): Cost {
  return costOf(fragranceCalls(fullNeed(datasets, 1), {}, 'cents'));
}

/** The theoretical minimum of a full sync of a catalogue of known sizes: every piece fetched once by its cheapest path. */
export function minimumCost(sizes: CatalogueSizes, datasets: DatasetsConfig, objective: Objective): Cost {
  const counts: CallCounts = {};
  const page = sizes.pageSizes ?? {};
  // A list's entries: its items, or more where its total said so (entries named twice).
  const entries = (walk: ListedWalk, items: number) => Math.max(items, sizes.listed?.[walk] ?? 0);
  if (fragranceDataWanted(datasets)) {
    addCalls(counts, { listFragrances: pagesFor(entries('fragrances', sizes.fragrances), page.fragrances) });
    const totals = Array.isArray(sizes.reviewTotals) ? sizes.reviewTotals : null;
    for (let i = 0; i < sizes.fragrances; i++) {
      const total = totals?.[i];
      const pages = totals ? reviewPages(total ?? 0, datasets.reviews, page.reviews) : 0;
      const known = { reviewTotal: total, similarCount: sizes.similarCounts?.[i] };
      addCalls(counts, fragranceCalls(fullNeed(datasets, pages), known, objective));
    }
    if (!Array.isArray(sizes.reviewTotals) && datasets.reviews.mode !== 'none') {
      addCalls(counts, { getReviews: sizes.reviewTotals.pages });
    }
  }
  if (datasets.brands) {
    for (const size of sizes.brands)
      addCalls(counts, { getBrand: 1, getBrandFragrances: pagesFor(size, page.brands) });
  }
  if (datasets.perfumers) addCalls(counts, { getPerfumer: sizes.perfumers });
  if (datasets.notes)
    addCalls(counts, {
      listNotes: pagesFor(entries('notes', sizes.notes), page.notes),
      getNote: sizes.notes,
    });
  if (datasets.accords)
    addCalls(counts, { listAccords: pagesFor(entries('accords', sizes.accords), page.accords) });
  if (datasets.charts) addCalls(counts, { listCharts: 1, getChart: sizes.charts });
  if (datasets.trending) addCalls(counts, { trending: 1 });
  return costOf(counts);
}

/**
 * A cost ratio (actual over the minimum) as printed: three decimals, rounded away from 1, so a
 * ratio that is not exactly 1 never reads 1.000 (2,031 / 2,030 cents is 1.000493: 1.001) and
 * one over a target never reads as meeting it (1.0501: 1.051). A ratio at three decimals reads
 * as it is (1, 1.05: a quotient of whole cents lands on one, give or take the float's last bits).
 */
export function formatRatio(ratio: number): string {
  const thousandths = ratio * 1000;
  const nearest = Math.round(thousandths);
  if (Math.abs(thousandths - nearest) < 1e-9) return (nearest / 1000).toFixed(3);
  const away = ratio > 1 ? Math.ceil(thousandths) : Math.floor(thousandths);
  return (away / 1000).toFixed(3);
}

/** Slug-style ids (one or two lowercase segments): the only ids enrich accepts. */
const SLUG_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)?$/;

/**
 * Whether a fragrance's similar list and first review page go through one enrich call: the
 * cost model's rule (src/plan/cost-model.ts enrichPays), only under the calls objective, only
 * for slug-style ids (enrich takes no other), and only when the previous sync showed both
 * lists short enough for enrich's cap of 20. `both`: the similar list and the reviews are owed.
 */
export function enrichFits(
  d: DatasetsConfig,
  id: string,
  both: boolean,
  known: FragranceKnown,
  objective: Objective,
): boolean {
  if (!both || !d.similar || d.reviews.mode !== 'all' || !SLUG_ID.test(id)) return false;
  const need = { profile: false, similar: true, wearing: false, reviewPages: 1, reviewDigest: false };
  return enrichPays(need, known, objective);
}
