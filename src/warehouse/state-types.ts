/**
 * What the warehouse knows about progress, read by the planner at the start of a run.
 * The warehouse, not Redis, is the durable truth of progress: per-item fetch state and
 * per-walk cursors live in DuckDB tables and are written in the same transaction as the
 * rows they describe (ProgressMark in domain/items.ts).
 *
 * A *cycle* is the work of bringing the whole mirror up to date once. It starts with the
 * first run after the last completed run and ends with the run that completes; runs
 * stopped by quota, budget, 402 or a crash leave the cycle open, and the next run continues
 * it instead of starting over.
 */
import type { Dataset, EntityKind } from '../domain/entities.ts';

/** The sync_items column that holds when each dataset was last fetched. */
export const FETCHED_COLUMN: Readonly<Record<Dataset, string>> = {
  profile: 'fetched_profile',
  similar: 'fetched_similar',
  wearing: 'fetched_wearing',
  reviews: 'fetched_reviews',
  reviewDigest: 'fetched_review_digest',
  catalogue: 'fetched_catalogue',
};

export interface ItemState {
  entity: EntityKind;
  key: string;
  /** ISO timestamps. */
  firstSeen: string;
  /** Last fetch time per dataset (ISO). */
  fetched: Partial<Record<Dataset, string>>;
  /** ISO time of the last observed change of the item's current row, if tracked. */
  lastChanged: string | null;
  /** True when upstream no longer has it (kept in history, absent from current tables). */
  removed: boolean;
}

export interface WalkState {
  /** e.g. 'fragrances', 'notes', 'accords', 'charts', 'brand:<slug>'. */
  walk: string;
  /** Last page read (1-based). */
  page: number;
  /** pagination.total seen on that page. */
  total: number;
  /**
   * Items per page the service used (its pagination.limit) on that page; null for walks an
   * older version recorded, which always read at 50.
   */
  pageSize?: number | null;
  done: boolean;
  /** A stopped walk's pages (ProgressMark `kept`), while it is not done; else absent. */
  kept?: (unknown[] | null)[] | null;
  /** ISO time of the last page read. */
  at: string;
}

export interface SyncState {
  /** ISO start of the open cycle, or null when the last run completed (a new cycle begins now). */
  cycleStart: string | null;
  /** run_id of the last completed run, if any. */
  lastCompletedRun: string | null;
  items: ItemState[];
  walks: WalkState[];
  /** Stored review totals (pagination.total last seen) per fragrance id. */
  reviewTotals: Map<string, number>;
  /** Stored similar-list lengths per fragrance id. */
  similarCounts: Map<string, number>;
  /** Catalogue sizes per brand slug (rows in brand_fragrances). */
  brandCatalogueSizes: Map<string, number>;
  /**
   * Fragrances on the latest stored snapshot of each chart: the nightly refreshes them before
   * other due items (src/plan/priority.ts). Optional: hand-made states of older tests lack it.
   */
  charted?: Set<string>;
  /** Live fragrances each perfumer and note covers, keyed `perfumer|<slug>`, `note|<slug>`. */
  members?: Map<string, number>;
  /**
   * The service's clock offset each run recorded (sync_run_clocks), by run start: ages are
   * judged on the service's clock (src/warehouse/service-clock.ts). Optional: hand-made states.
   */
  clocks?: ClockMark[];
  /**
   * The datasets whose answer is still open in quarantine and that the nightly asks for again
   * (their fetch forgotten in `items`, sync-state.ts). Optional: hand-made states.
   */
  quarantineOwed?: QuarantineOwed[];
}

/** A run's start (ISO, this machine's clock) and the service's clock minus this machine's then (ms). */
export interface ClockMark {
  runId: string;
  from: string;
  offsetMs: number;
}

/** What a warehouse that never synced knows: nothing, and no cycle open. */
export function emptySyncState(): SyncState {
  return {
    cycleStart: null,
    lastCompletedRun: null,
    items: [],
    walks: [],
    reviewTotals: new Map(),
    similarCounts: new Map(),
    brandCatalogueSizes: new Map(),
    charted: new Set(),
    members: new Map(),
    clocks: [],
  };
}

/** A record in quarantine the next nightly asks for again: its (live) item and the dataset. */
export interface QuarantineOwed {
  entity: EntityKind;
  dataset: Dataset;
  key: string;
  /** The path template whose answer was quarantined (STORED_BY's key): the call asked again. */
  endpoint: string;
}
