/**
 * Public types of the local Fragrance Data Service. The resource shapes follow the spec
 * (shared/spec/fragrance-api.md) field for field; GroundTruth is the whole catalogue exactly
 * as the API would return it, so tests can compare a warehouse against it.
 */

import type { TableDigest } from '../util/row-digest.ts';

export interface FragranceSummary {
  id: string;
  name: string;
  brand: string;
}

export interface FragranceProfile {
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

export interface Review {
  rating: number;
  text: string | null;
  /** YYYY-MM-DD */
  date: string;
}

export interface SimilarEntry {
  id: string;
  name: string;
  brand: string;
  similarityScore: number;
}

export interface LabelScore {
  label: string;
  score: number;
}

export interface WearingStats {
  fragranceId: string;
  seasons: { spring: number; summer: number; fall: number; winter: number };
  moods: LabelScore[];
  occasions: LabelScore[];
}

export interface Brand {
  slug: string;
  name: string;
  country: string;
  description: string;
  topFragrances: { id: string; name: string; score: number }[];
}

export interface Perfumer {
  slug: string;
  name: string;
  nationality: string;
  bio: string;
  topCreations: { id: string; name: string; brand: string; score: number }[];
}

export interface Note {
  slug: string;
  name: string;
  family: string;
  description: string;
  topFragrances: { id: string; name: string; brand: string; score: number }[];
}

export interface AccordFamily {
  slug: string;
  name: string;
}

export interface ChartEntry {
  rank: number;
  id: string;
  name: string;
  brand: string;
  score: number;
}

export interface Chart {
  slug: string;
  title: string;
  entries: ChartEntry[];
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
}

export interface GroundTruth {
  fragrances: FragranceProfile[];
  /** Newest first, exactly the order the reviews endpoint pages through. */
  reviews: Record<string, Review[]>;
  /** The full list the API gives at limit 50. */
  similar: Record<string, SimilarEntry[]>;
  wearing: Record<string, WearingStats>;
  brands: Brand[];
  /** Brand slug → the exhaustive catalogue in API order. */
  brandCatalogues: Record<string, { id: string; name: string }[]>;
  perfumers: Perfumer[];
  notes: Note[];
  accords: AccordFamily[];
  charts: Chart[];
  /** YYYY-MM-DD of the service clock. */
  serviceDate: string;
}

/** Legal readings of the spec where it says "not shown". */
export interface SimulatorVariant {
  /** Fragrance ids: opaque ('f_8k2j9x') or two-segment slugs ('brand-slug/fragrance-slug'). */
  idStyle: 'opaque' | 'slug';
  /** Body of non-429 errors: JSON envelope or plain text. */
  errorBody: 'json' | 'text';
  /** Add unknown extra fields to every object in responses. */
  extraFields: boolean;
  /** Code for 400s other than INVALID_QUERY. */
  bad400Code: string;
  /** Whether 4xx/5xx (except 401, 402, 429) and resets are billed and use quota. */
  billFailedCalls: boolean;
  /** Order of the fragrance list, notes, accords, brand catalogues (stable per catalogue version). */
  listOrder: 'id' | 'reverse' | 'shuffled';
  /**
   * The largest page the paginated endpoints serve (fragrance list, reviews, brand
   * catalogues, notes, accords): a request for more gets this many, and pagination.limit
   * says so ("the page size used"). null: as many as asked.
   */
  pageCap: number | null;
  /**
   * The edge reading (edges.ts): scores on another scale where no range is stated, empty
   * strings where none is forbidden, tied chart ranks, repeated entries in lists and
   * listings, search results of unknown types or without a type.
   */
  edgeValues: boolean;
}

/**
 * What one simulated day changes (change-model.ts has the defaults, docs/simulator.md the
 * reasons). Rates are shares of the live fragrances per day; each above 0 touches at least one.
 */
export interface ChangeModel {
  /** New releases. */
  releaseRate: number;
  /** Of the day's releases, how many come from a brand-new house (a new brand, perfumer and note). */
  newHouses: number;
  /** Discontinued: gone from the list, catalogues, charts, similar lists (404 afterwards). */
  removalRate: number;
  /** Scores that move (by up to ±0.2). */
  scoreDriftRate: number;
  /** Fragrances that get 1 to 5 new reviews, dated the new day, on top of page 1. */
  reviewRate: number;
  /** Fragrances whose accords are redrawn (their similar lists and others' change). */
  accordChangeRate: number;
  /** Fragrances whose popularity moves (it orders the trending chart). */
  popularityRate: number;
  /** Chance that the day adds a dated chart ("new charts are added over time"). */
  newChartChance: number;
  /**
   * How other fragrances' similar lists react to a day's releases and reformulations (the spec
   * says only "by accord profile"; when a service recomputes them is not shown):
   * - 'live': computed from the live catalogue at every request, so a release enters the
   *   lists it scores into (about 45 of them on 1,500 fragrances) the day it appears;
   * - 'fixed': a list is computed when its fragrance is released or reformulated (or, for
   *   the catalogue the day starts from, as it stands) and afterwards only loses the entries
   *   that are discontinued: other lists never take in a release.
   */
  similarLists: SimilarLists;
}

export type SimilarLists = 'live' | 'fixed';

export interface SimulatorOptions {
  /** Catalogue size, default 300. */
  fragrances?: number;
  /** Deterministic catalogue, default 1. */
  seed?: number;
  /** API keys, all of ONE account (one quota pool, one balance); default ['sim-key']. */
  keys?: string[];
  /** 0/undefined: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** X-RateLimit-Limit, default 1_000_000. */
  dailyQuota?: number;
  /** Prepaid balance, default 1e9. */
  balanceCents?: number;
  /** Compressed clock: one service day lasts this many real seconds. Default: the real clock. */
  daySeconds?: number;
  /** Added before every /v1 answer, in ms (a remote service's latency); default 0. */
  latencyMs?: number;
  variant?: Partial<SimulatorVariant>;
  /** What a simulated day changes; DEFAULT_CHANGE_MODEL where not given. */
  changeModel?: Partial<ChangeModel>;
  /**
   * Serve one fragrance profile the spec does not allow (invalid.ts): its year as text
   * ('wrong-type') or without its name ('missing-key'). Not a legal reading: a service's bug.
   */
  invalidRecord?: InvalidRecordKind;
  /**
   * Keep every billed request (method, path, query and body) for paidRequests(): what a test
   * checks for a page bought twice. Off by default (a 120k run makes a million).
   */
  recordPaid?: boolean;
}

export type InvalidRecordKind = 'wrong-type' | 'missing-key';

/** Which record SimulatorOptions.invalidRecord breaks. */
export interface InvalidRecordInfo {
  endpoint: string;
  id: string;
  kind: InvalidRecordKind;
}

/** Fault rates are probabilities 0..1 per /v1 request. */
export interface Faults {
  errorRate: number;
  resetRate: number;
  truncateRate: number;
  latencyMs: number;
}

export interface LedgerEntry {
  calls: number;
  cents: number;
  /** HTTP status → count; '0' for connection resets. */
  byStatus: Record<string, number>;
}

export interface Ledger {
  /** Every /v1 request received, billed or not. */
  calls: number;
  /** Cents actually billed. */
  cents: number;
  /** Keyed by path template, e.g. '/v1/fragrances/{id}/similar'. */
  byEndpoint: Record<string, LedgerEntry>;
}

export interface ClockInfo {
  /** Service time, ISO 8601. */
  now: string;
  serviceDate: string;
  /** Real epoch seconds at which the quota window resets. */
  resetEpochSeconds: number;
  remaining: number;
  limit: number;
  balanceCents: number;
  /** Simulated days passed since the start (advanceDay calls, with churn or not). */
  day: number;
}

export interface Simulator {
  url: string;
  port: number;
  close(): Promise<void>;
  groundTruth(): GroundTruth;
  /** The record served invalid (SimulatorOptions.invalidRecord), or null. */
  invalidRecord(): InvalidRecordInfo | null;
  /**
   * Each contract table's row count and order-independent digest, from the ground truth: how a
   * benchmark checks a 120k-fragrance warehouse without the truth crossing a process boundary.
   */
  truthDigest(): Record<string, TableDigest>;
  /**
   * Midnight passes `days` times (default 1): the quota resets; with churn (default true) each
   * day applies the change model to the catalogue.
   */
  advanceDay(opts?: { churn?: boolean; days?: number }): void;
  /** The change model the next days apply. */
  changeModel(): ChangeModel;
  setChangeModel(patch: Partial<ChangeModel>): void;
  setRemaining(n: number): void;
  /** The account's daily allowance changes now (a raise adds its difference to remaining). */
  setLimit(limit: number): void;
  topUp(cents: number): void;
  /**
   * The balance (or with `'quota'`, the day's quota) runs out right after the next billed
   * request `match` accepts (as `METHOD /v1/path?query body`): another application spends the
   * rest, so the service answers 402 (or 429) from there on, at a point of a run a test
   * chooses. Once; topUp refills the balance, setLimit with a raise the quota.
   */
  drainAfter(match: (request: string) => boolean, what?: 'balance' | 'quota'): void;
  /**
   * The next billed request `match` accepts is billed and then answered only once the test
   * calls `release()`: a request on the wire, held there while the test changes what happens
   * around it (a 402 elsewhere). `reached` resolves when it is held. Once.
   */
  holdAnswer(match: (request: string) => boolean): { reached: Promise<void>; release: () => void };
  setFaults(f: Partial<Faults>): void;
  ledger(): Ledger;
  /** Every billed request as `METHOD /path?query body`, in order (needs recordPaid). */
  paidRequests(): string[];
  now(): Date;
  /** New reviews arrive at the top of a fragrance's review list right now. */
  addReviews(fragranceId: string, count: number): void;
  clock(): ClockInfo;
  /**
   * /v1 requests being handled right now, and the most there were at once since the last
   * reset (`reset: true` starts counting again): what a client keeps in flight, seen from here.
   * `requestMs`: the time every /v1 request spent here, summed, since the service started
   * (over a span of the client's run: its mean requests in flight at the service).
   */
  inFlight(opts?: { reset?: boolean }): { now: number; peak: number; requestMs: number };
}
