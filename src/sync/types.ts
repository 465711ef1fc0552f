import type { Logger } from 'pino';
import type { JobSettings } from '../../jobs/types.ts';
import type { FragranceClient } from '../api/client.ts';
import type { Config } from '../config/index.ts';
import type { Governor } from '../governor/types.ts';
import type { JobOutcome, QueueDriver } from '../queue/types.ts';
import type { SyncMode } from '../plan/freshness.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import type { WriterLock } from '../warehouse/writer-lock.ts';
import type { OpenedWarehouse } from './open-warehouse.ts';

/** The values the stages of a sync hand each other (open → plan → fetch/load → finish). */

export interface SyncDeps {
  config: Config;
  log: Logger;
  governor: Governor;
  /** Builds the driver once the coordinator knows how to receive outcomes. */
  makeDriver: (ctx: DriverContext) => Promise<QueueDriver>;
  /** Called about once a second with the live state, for the progress line. */
  onTick?: (tick: SyncTick) => void;
  /** Between two onTick calls, ms (default 1000); tests that read the ticks may shorten it. */
  tickMs?: number;
  /**
   * Aborted to stop the run early (the first SIGINT/SIGTERM): no job is taken after it, the
   * jobs in hand finish (their calls are paid; throwing them away would pay them again next
   * time), everything is loaded and the run ends 'interrupted'.
   */
  interrupt?: AbortSignal;
  /**
   * The run's warehouse, already being opened (open-warehouse.ts: the command starts it while
   * it loads the rest); openRun opens it itself without one.
   */
  opening?: Promise<OpenedWarehouse>;
}

export interface DriverContext {
  runId: string;
  client: FragranceClient;
  settings: JobSettings;
  onOutcome: (outcome: JobOutcome) => Promise<void>;
  onPause: (until: Date) => void;
  /**
   * Called when a quota pause ends while the run still has work outstanding (never after
   * idle()); the driver takes no waiting job until it settles.
   */
  onResume: () => Promise<void>;
}

export interface SyncTick {
  runId: string;
  phase: 'discovery' | 'details' | 'paused' | 'stopping' | 'finishing';
  jobsDone: number;
  jobsScheduled: number;
  calls: number;
  /**
   * The run's calls in all: a full run's from the fragrance list's total (call-estimate.ts), a
   * nightly's from its plan (nightly-estimate.ts); null until known.
   */
  expectedCalls: number | null;
  cents: number;
  /** The run's cap (--max-cents); null: none. */
  maxCents: number | null;
  /**
   * What the day's cap (--max-cents-per-day) left this run at its start: the cap less what
   * the service's day had spent by then; null: no day cap.
   */
  dayCentsLeft: number | null;
  quotaRemaining: number | null;
  pausedUntil: Date | null;
  elapsedMs: number;
  /** Of elapsedMs, the time spent in quota pauses (the current one included). */
  pausedMs: number;
}

/** A run as the open stage leaves it: its row in sync_runs is 'running', the warehouse is ours. */
export interface OpenRun {
  runId: string;
  started: Date;
  log: Logger;
  warehouse: WarehouseHandle;
  /** The run's writer lock on the warehouse (null where a test plays a run without one). */
  writer: WriterLock | null;
  /** full: everything the cycle has not fetched; nightly: what changed or is due (src/plan/freshness.ts). */
  mode: SyncMode;
  /** What the warehouse knew at the run's start (read once: the plan stage's input). */
  state: SyncState;
  /**
   * The run's cent caps, for its progress line: its own (--max-cents), and what the day's
   * (--max-cents-per-day) left it at its start, less the cents the ledger spent on the
   * service's day by then (all runs); null: no such cap.
   */
  caps: Pick<SyncTick, 'maxCents' | 'dayCentsLeft'>;
}
