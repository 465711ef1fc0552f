import type { Logger } from 'pino';
import type { FragranceClient } from '../src/api/client.ts';
import type { LoadItem, ProgressMark, Review } from '../src/domain/items.ts';
import type { EntityKind } from '../src/domain/entities.ts';

/**
 * Entities a response names, one mark per list (a similar list names 50 fragrances, a 20k
 * sync reads a million such names): the coordinator's frontier keeps a `discovered`
 * progress mark only for those it did not know.
 */
export interface NamedMark {
  kind: 'named';
  entity: EntityKind;
  keys: string[];
  source: string;
}

/** What a job reports: progress marks to persist, and the entities it named. */
export type JobMark = Exclude<ProgressMark, { kind: 'discovered' } | { kind: 'stale' }> | NamedMark;

/**
 * Every kind of job: a plain async function of (context, payload). Payloads are plain JSON
 * so they can travel through Redis. A job makes one API call or reads one small list, and
 * is idempotent: its id is derived from its content (jobId), so a job enqueued twice in a
 * run is one job, and re-running it after a crash writes the same rows.
 */
export interface JobPayloads {
  /**
   * One page of the fragrance list (the cheapest enumeration: 50 summaries per cent).
   * `pass`: the list walks are read again after each quota reset of a run that waits through
   * resets (see Frontier.rewalk); the pass number keeps those jobs apart from the first ones.
   * Absent on the first pass.
   */
  fragrancesPage: { page: number; pass?: number };
  /** One page of the note list. */
  notesPage: { page: number; pass?: number };
  /**
   * The whole accord list (about two pages). `resume`: the pages a stopped read of this cycle
   * kept, read on from there while the list has not moved (paging.ts, walkAll).
   */
  accords: { pass?: number; resume?: WalkResume<AccordEntry> };
  /** The chart list; every chart it names becomes a chart job. */
  charts: { pass?: number };
  chart: { slug: string };
  trending: Record<string, never>;
  /** Profile of one fragrance: notes, accords, brand and perfumer slugs, year, score. */
  fragranceProfile: { id: string };
  fragranceSimilar: { id: string };
  fragranceWearing: { id: string };
  /**
   * Reviews of one fragrance; knownTotal enables the incremental read of only the new ones.
   * `resume`: an earlier read stopped after `page` pages (a 402, a budget, the quota) and
   * stored them; they are read on from page + 1 if the list has not moved (ReviewsResume).
   */
  fragranceReviews: {
    id: string;
    knownTotal: number | null;
    knownCount: number | null;
    resume?: ReviewsResume;
  };
  reviewDigest: { id: string };
  /** Similar list and reviews in one call, when quota binds and both lists are known to be short. */
  fragranceEnrich: { id: string };
  brand: { slug: string };
  /** A brand's exhaustive catalogue, all pages; `resume` as for accords. */
  brandCatalogue: { slug: string; resume?: WalkResume<CatalogueEntry> };
  perfumer: { slug: string };
  note: { slug: string };
  /** Ids named somewhere (similar lists, charts) but never listed: resolved 50 at a time. */
  batch: { ids: string[] };
}

/**
 * Where a stopped walk stands (paging.ts, WalkStopped): the entries of each page it read,
 * null for a page it did not (a page after one that was refused may have come back), all at
 * `size` a page under `total`. Stored with the walk's mark (`kept`) so that the next read
 * asks only for the rest.
 */
export interface WalkResume<T> {
  size: number;
  total: number;
  pages: (T[] | null)[];
}

/** An accord family as the accord list names it. */
export interface AccordEntry {
  slug: string;
  name: string;
}

/** A fragrance as a brand's catalogue names it. */
export interface CatalogueEntry {
  id: string;
  name: string;
}

/**
 * Where a stopped review walk stands: pages 1..page were read at `size` reviews a page (the
 * service's pagination.limit), the total stayed `total` throughout, and their reviews are
 * stored (the warehouse's multiset for the fragrance, `reviews` here, in any order).
 */
export interface ReviewsResume {
  page: number;
  size: number;
  total: number;
  reviews: Review[];
}

export type JobKind = keyof JobPayloads;

export interface JobSpec<K extends JobKind = JobKind> {
  kind: K;
  payload: JobPayloads[K];
  /** Lower runs first: cheap walks that find new and removed items before the long tail. */
  priority: number;
}

/** What the sync-wide settings tell a job about the datasets to fetch. */
export interface JobSettings {
  reviews: { mode: 'all' | 'newest' | 'none'; newest: number };
  similar: boolean;
  wearing: boolean;
  reviewDigest: boolean;
  brands: boolean;
  perfumers: boolean;
}

export interface JobContext {
  log: Logger;
  client: FragranceClient;
  settings: JobSettings;
  signal: AbortSignal;
}

export interface JobResult {
  items: LoadItem[];
  progress: JobMark[];
  /**
   * Further pages of the same walk. Entities a job names (a brand slug in a profile, ids in a
   * similar list) are reported as `named` marks instead: the coordinator turns them into jobs
   * unless the cycle already fetched them.
   */
  follow: JobSpec[];
}

/**
 * A job stopped by `cause` (a stop or a pause of the run) after paying for part of its work:
 * `partial` keeps what that part bought (stored, and marked so that the next run's read goes
 * on from there), `next` is the job that goes on from there when it waits in this run. The
 * queue decides on `cause` as for any error.
 */
export class PartialResultError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly partial: JobResult,
    readonly next: JobSpec,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'PartialResultError';
  }
}

export type Processor<K extends JobKind> = (ctx: JobContext, payload: JobPayloads[K]) => Promise<JobResult>;

export function emptyResult(): JobResult {
  return { items: [], progress: [], follow: [] };
}
