/**
 * The typed values that fetch jobs hand to the loader, the only writer of the warehouse.
 * Each item describes what one or more API responses said, normalized to the contract's
 * columns (../shared/spec/warehouse-contract.md). Items are plain JSON (no Date, no BigInt)
 * so that they can travel through a Redis queue between processes unchanged.
 *
 * Mirror semantics live in the item kinds: an item that carries a whole list (notes and
 * accords of a profile, a similar list, a brand catalogue, a fragrance's reviews) replaces
 * what the warehouse held for that key as a whole.
 */

import type { ApiCallItem, SentCall } from './calls.ts';
import type { EntityKind } from './entities.ts';

export interface Review {
  /** YYYY-MM-DD as the API returned it. */
  date: string;
  rating: number;
  /** null for rating-only reviews. */
  text: string | null;
}

export interface FragranceProfileItem {
  kind: 'fragrance';
  id: string;
  name: string;
  brand: string;
  brandSlug: string;
  perfumer: string;
  perfumerSlug: string;
  year: number;
  score: number;
  notes: { top: string[]; middle: string[]; base: string[] };
  accords: { name: string; strength: number }[];
}

/** A summary (list page, batch, trending): upserts name and brand, never clobbers profile columns. */
export interface FragranceSummaryItem {
  kind: 'fragranceSummary';
  id: string;
  name: string;
  brand: string;
}

/**
 * Lists with hundreds of thousands of entries per sync travel column by column: entry i is
 * the i-th value of each array. Arrays of plain values are about half the bytes of objects
 * with repeated keys, and much cheaper to encode on the fetching thread and to parse again
 * in the loader (a 20k sync journals 840k similar entries and 900k reviews).
 */
export interface SimilarItem {
  kind: 'similar';
  fragranceId: string;
  /** The whole list in API order: rank i is (ids[i], scores[i]). */
  ids: string[];
  scores: number[];
}

export interface WearingItem {
  kind: 'wearing';
  fragranceId: string;
  seasons: { spring: number; summer: number; fall: number; winter: number };
  moods: { label: string; score: number }[];
  occasions: { label: string; score: number }[];
}

/**
 * Reviews of one fragrance. `replace`: `reviews` is the whole multiset upstream holds
 * (already de-overlapped across shifted pages by the fetch job). `prepend`: `reviews` are
 * the newest ones, added upstream since the warehouse last saw `total - reviews.length`.
 */
export interface ReviewsItem {
  kind: 'reviews';
  fragranceId: string;
  mode: 'replace' | 'prepend';
  /** pagination.total of the last page read. */
  total: number;
  /** The reviews in API order (newest first), column by column (see SimilarItem). */
  dates: string[];
  ratings: number[];
  texts: (string | null)[];
}

/** A similar list as the item's columns: the entries' names and brands are not kept. */
export function similarColumns(
  entries: readonly { id: string; similarityScore: number }[],
): Pick<SimilarItem, 'ids' | 'scores'> {
  return { ids: entries.map((e) => e.id), scores: entries.map((e) => e.similarityScore) };
}

/** Reviews as columns (ReviewsItem's fields). */
export function reviewColumns(reviews: readonly Review[]): Pick<ReviewsItem, 'dates' | 'ratings' | 'texts'> {
  return {
    dates: reviews.map((r) => r.date),
    ratings: reviews.map((r) => r.rating),
    texts: reviews.map((r) => r.text),
  };
}

export interface BrandItem {
  kind: 'brand';
  slug: string;
  name: string;
  country: string;
  description: string;
}

/**
 * A brand's exhaustive catalogue: replaces brand_fragrances for that brand, unless the walk
 * that read it is not known complete (`complete: false`): then it only adds its members.
 */
export interface BrandCatalogueItem {
  kind: 'brandCatalogue';
  brandSlug: string;
  fragrances: { id: string; name: string }[];
  /** Absent: true. */
  complete?: boolean;
}

export interface PerfumerItem {
  kind: 'perfumer';
  slug: string;
  name: string;
  nationality: string;
  bio: string;
}

/** From the note list (no description) or the note profile (with description). */
export interface NoteItem {
  kind: 'note';
  slug: string;
  name: string;
  family: string;
  /** undefined: list item, keep the stored description. */
  description?: string;
}

export interface AccordItem {
  kind: 'accord';
  slug: string;
  name: string;
}

export interface ChartItem {
  kind: 'chart';
  slug: string;
  title: string;
}

/** A chart read on `snapshotDate` (UTC day of the service's Date header): replaces that day's snapshot. */
export interface ChartSnapshotItem {
  kind: 'chartSnapshot';
  chartSlug: string;
  title: string;
  snapshotDate: string;
  entries: { rank: number; id: string; name: string; brand: string; score: number }[];
}

/** Optional dataset: raw JSON of an AI review digest. */
export interface ReviewDigestItem {
  kind: 'reviewDigest';
  fragranceId: string;
  raw: unknown;
}

/**
 * Upstream no longer has these (404 on the profile, or absent from a completed list walk):
 * removed from current tables, kept in history.
 */
export interface RemovalItem {
  kind: 'removal';
  entity: EntityKind;
  keys: string[];
}

/** A response or record that failed validation: kept with its raw payload, never loaded. */
export interface QuarantineItem {
  kind: 'quarantine';
  endpoint: string;
  key: string;
  reason: string;
  raw: unknown;
  /**
   * What `raw` is: a whole response (the default), one entry of a list whose other entries
   * loaded, an item the loader could not store, or the payload of a job that failed.
   */
  scope?: QuarantineScope;
}

export type QuarantineScope = 'response' | 'entry' | 'item' | 'job';

export type LoadItem =
  | FragranceProfileItem
  | FragranceSummaryItem
  | SimilarItem
  | WearingItem
  | ReviewsItem
  | BrandItem
  | BrandCatalogueItem
  | PerfumerItem
  | NoteItem
  | AccordItem
  | ChartItem
  | ChartSnapshotItem
  | ReviewDigestItem
  | RemovalItem
  | QuarantineItem
  | ApiCallItem;

export type LoadItemKind = LoadItem['kind'];

/**
 * Progress that must commit in the same transaction as the rows it describes, so that a
 * crash never records progress for rows that were not stored.
 */
export type ProgressMark =
  /** A dataset of an item was fetched (dataset e.g. 'profile', 'similar', 'wearing', 'reviews'). */
  | { kind: 'fetched'; entity: string; key: string; dataset: string }
  /**
   * A page walk reached `page` (1-based, last page read) of `total` items, at `pageSize`
   * items a page (the service's pagination.limit: the page size it used). `kept`: a walk one
   * job reads whole, stopped part-way, keeps the entries of each page it bought (null for
   * one it did not), so the next read of the cycle buys only the rest.
   */
  | {
      kind: 'walk';
      walk: string;
      page: number;
      total: number;
      done: boolean;
      pageSize?: number;
      kept?: (unknown[] | null)[];
    }
  /** An item is known to exist (discovered), with the walk or response that named it. */
  | { kind: 'discovered'; entity: string; key: string; source: string }
  /**
   * A signal said a dataset of an item changed upstream (a nightly's frontier): its fetch
   * time is cleared, so it stays owed until fetched again, by this run or the next one.
   */
  | { kind: 'stale'; entity: string; key: string; dataset: string };

/** One unit of work for the loader: applied in one transaction. */
export interface LoadBatch {
  runId: string;
  items: LoadItem[];
  progress: ProgressMark[];
}

/**
 * One journal line: a job's share of a batch, or requests just sent (`sent`, with no items),
 * as the sync journals it and the loader reads it.
 */
export interface LoadEntry extends LoadBatch {
  sent?: SentCall[];
}
