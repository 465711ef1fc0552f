import type { ExportResult } from './export.ts';
import type { LoadResult } from './loader.ts';
import type { LoadBatch, ProgressMark } from '../domain/items.ts';
import type { SyncState } from './state-types.ts';
import type { RecordedStatus } from '../domain/run.ts';
import type { RunChanges } from './run-changes.ts';

/**
 * What the sync needs of the warehouse it owns. `Warehouse` is it, in this thread;
 * `ThreadWarehouse` (thread/remote.ts) is the same calls answered by a Warehouse in a
 * worker thread, so DuckDB and the loader's work leave the thread that keeps requests in
 * flight. Callers cannot tell them apart.
 */
export interface WarehouseHandle {
  /**
   * Migrations its opening applied. Not logged by the opening: a sync opens its warehouse
   * while it connects to Redis, and a run that never starts says only why (open-run.ts logs them).
   */
  readonly migrated: readonly number[];
  load(batch: LoadBatch): Promise<LoadResult>;
  loadJournal(path: string, progress: ProgressMark[]): Promise<LoadResult>;
  startRun(runId: string, startedAt: Date, intent?: RunIntent): Promise<void>;
  finishRun(
    runId: string,
    status: RecordedStatus,
    finishedAt: Date,
    clockOffsetMs?: number | null,
  ): Promise<void>;
  spendOnDay(dayUtc: string): Promise<{ calls: number; cents: number }>;
  /** Takes the run's baseline: the tables as it finds them (run-changes.ts). */
  takeBaseline(): Promise<void>;
  /** The tables against the run's baseline (null: none taken), which it drops. */
  runChanges(): Promise<RunChanges | null>;
  syncState(): Promise<SyncState>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  exportParquet(dir: string): Promise<ExportResult>;
  /**
   * Lets go of the file (after the calls under way) so other processes can read it; the next
   * call opens it again.
   */
  release(): Promise<void>;
  close(): Promise<void>;
}

/** What a run sets out to do: its mode, and the freshness policy it judges ages by. */
export interface RunIntent {
  mode: 'full' | 'nightly';
  policy: { entity: string; dataset: string; maxAgeHours: number }[];
}
