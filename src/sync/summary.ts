import type { OccupancyFigures } from '../api/occupancy.ts';
import type { Config } from '../config/index.ts';
import type { Cost } from '../plan/cost-model.ts';
import { buildPlan } from '../plan/plan.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { RunChanges } from '../warehouse/run-changes.ts';
import { flaggedInRun, type CycleOpen, type EndpointCount } from '../warehouse/quarantine.ts';
import { readAll, type RunStatus } from '../domain/run.ts';
import {
  catalogueMinimum,
  cycleRuns,
  failedByStatus,
  overflowInRun,
  spendByEndpoint,
  tableRows,
  type EndpointSpend,
  type FailedStatus,
  type OverflowCount,
} from './summary-figures.ts';

/**
 * full: everything was fetched (the first run, --full); incremental: only what changed or was
 * owed. Set by whoever decides the run's mode (the nightly engine); 'full' until then.
 */
export type SummaryMode = 'full' | 'incremental';

export interface SyncSummary {
  runId: string;
  mode: SummaryMode;
  /** Why the run ended: the cause the command line turns into an exit code. */
  status: RunStatus;
  message: string | null;
  durationMs: number;
  /** Every request the run sent, failed ones included. */
  calls: number;
  /** Cents of the calls answered 200: what the service billed for certain. */
  cents: number;
  /**
   * Calls not answered 200 (errors, and requests with no answer), and their list price: the
   * spec does not say whether failed calls are billed, so up to failedCents more may be.
   */
  failedCalls: number;
  failedCents: number;
  /** The failed calls per HTTP status (0: no answer), most first: a 404 is an item gone upstream. */
  failedByStatus: FailedStatus[];
  /** The same per endpoint template. */
  byEndpoint: EndpointSpend[];
  /** Rows per contract table after the run. */
  rows: Record<string, number>;
  /**
   * What this run did: rows added, changed and removed per data table, and the items those
   * rows belong to (warehouse/run-changes.ts); null when the run took no baseline.
   */
  changes: RunChanges | null;
  /** The cheapest possible full sync of the mirrored catalogue (docs/cost-model.md). */
  minimum: Cost;
  /**
   * cents / minimum.cents, only for a full run that completed and began its cycle (read the
   * whole catalogue itself): against part of the work it would read as a bargain.
   */
  costRatio: number | null;
  /** The same with the failed calls' list price counted (a service that bills them); null with costRatio. */
  costRatioIfFailedBilled: number | null;
  /** Full runs before this one in its cycle that read something (0: this run began it). */
  earlierCycleRuns: number;
  /** A completed full cycle read over several service days (the next nightly's to catch up), else null. */
  serviceDays: { count: number; first: string; last: string } | null;
  /** Incremental runs: cents per item (fragrance, brand, ...) this run added, changed or removed. */
  centsPerChangedItem: number | null;
  /** When a quota pause this run was in ends here: the reset plus the resume jitter. */
  pausedUntil: Date | null;
  /** When the quota resets, as the service said it (X-RateLimit-Reset), without the jitter. */
  quotaResetsAt: Date | null;
  failures: { terminal: number; transient: number; internal: number };
  /**
   * Records this run could not store (the quarantine table), per endpoint as recorded, with
   * one example reason: a run that read everything and quarantined anything is
   * 'completed_with_quarantine', with its own exit code.
   */
  quarantined: EndpointCount[];
  /**
   * Jobs of this run that failed and are still open in quarantine (scope 'job': nothing was
   * received; the next sync fetches their work again), counted apart from records.
   */
  failedJobs: number;
  /**
   * A full run that completed its cycle: what the cycle's earlier runs left open in quarantine
   * at its end (records, and apart failed jobs), not asked again by this run and missing from
   * the mirror all the same, so the run is 'completed_with_quarantine' too. Zero otherwise.
   */
  earlierInCycle: CycleOpen;
  /** Records earlier runs quarantined that this run stored after all (released from quarantine). */
  released: number;
  /** Records earlier runs quarantined, now gone upstream: closed (released), not stored. */
  gone: number;
  /** Failed jobs of earlier runs (quarantine rows of scope 'job') whose work this run did. */
  refetched: number;
  /** The run failed because its lists answered 404 (a wrong base URL): its 404s are no items gone upstream. */
  wrongBaseUrl: boolean;
  /** Values this run stored as sent though they break a range the spec states (value_flags), per table. */
  flagged: EndpointCount[];
  /**
   * Rows this run stored in the overflow tables, per table with any: entries the contract's
   * keys cannot hold (tied ranks, repeats). Stored and exported, so the exit code stays.
   */
  overflow: OverflowCount[];
  owedJobs: { waiting: number; active: number; delayed: number };
  /**
   * What the rest of the open cycle would cost (cost model, from the warehouse after this
   * run); null when the run completed. lowerBound: some walk sizes or review totals are still
   * unknown, so only their first pages are counted.
   */
  owed: { calls: number; cents: number; lowerBound: boolean } | null;
  /**
   * Requests in flight over the fetch (time-weighted) against http.concurrency, and why slots
   * were idle (api/occupancy.ts): how well the service's latency was hidden, whatever the
   * machine's speed. Null when not measured.
   */
  inFlight: OccupancyFigures | null;
}

export interface SummaryInput {
  runId: string;
  status: RunStatus;
  started: Date;
  config: Config;
  stopMessage: string | null;
  pausedUntil: Date | null;
  quotaResetsAt: Date | null;
  terminalFailures: number;
  transientFailures: number;
  internalFailures: number;
  loaded: Record<string, number>;
  owedJobs: { waiting: number; active: number; delayed: number };
  /** Default 'full'. */
  mode?: SummaryMode;
  inFlight?: OccupancyFigures | null;
  /** Default 0. removalsConfirmed: the items this run's 404s confirmed gone upstream (FetchResult). */
  released?: number;
  gone?: number;
  refetched?: number;
  removalsConfirmed?: number;
  /** Records still quarantined of the run at its end (quarantinedInRun; failed jobs apart): its status says it. */
  quarantined: EndpointCount[];
  /** Its failed jobs still open in quarantine (failedJobsInRun). Default 0. */
  failedJobs?: number;
  /** Open rows of the cycle's earlier runs (openOfEarlierCycleRuns). Default none. */
  earlierInCycle?: CycleOpen;
  /** The run failed because its lists answered 404: the base URL is wrong (finish.ts). */
  wrongBaseUrl?: boolean;
}

export async function summarize(wh: WarehouseHandle, input: SummaryInput): Promise<SyncSummary> {
  // The statements run one after another in the warehouse; asked at once, none waits for the
  // answer to the one before to cross back from the loader thread (about 35 of them, which
  // took 0.3-0.7 s at 20k, docs/benchmarks.md, session 10; the row counts are one statement).
  const counted = tableRows(wh);
  const [byEndpoint, rows, minimum, changes, before, flagged, state, failed, overflow] = await Promise.all([
    spendByEndpoint(wh, input.runId),
    counted,
    catalogueMinimum(wh, input.config, counted),
    wh.runChanges(),
    cycleRuns(wh, input.runId),
    flaggedInRun(wh, input.runId),
    readAll(input.status) ? null : wh.syncState(),
    failedByStatus(wh, input.runId, input.removalsConfirmed),
    overflowInRun(wh, input.runId),
  ]);
  const sum = (f: (e: (typeof byEndpoint)[number]) => number) => byEndpoint.reduce((s, e) => s + f(e), 0);
  let owed: SyncSummary['owed'] = null;
  if (state) {
    // What `fragsync plan` says next, by the same call (the service's clock as this run saw it).
    const plan = buildPlan(state, input.config, null);
    owed = { calls: plan.cost.calls, cents: plan.cost.cents, lowerBound: plan.atLeast };
  }
  const calls = sum((e) => e.calls);
  const cents = sum((e) => e.cents);
  const mode = input.mode ?? 'full';
  const changedItems = changes ? Object.values(changes.items).reduce((a, b) => a + b, 0) : 0;
  const earlierCycleRuns = mode === 'full' ? before.earlier : 0;
  const whole = mode === 'full' && readAll(input.status) && earlierCycleRuns === 0;
  return {
    runId: input.runId,
    mode,
    status: input.status,
    message: input.stopMessage,
    durationMs: Date.now() - input.started.getTime(),
    calls,
    cents,
    failedCalls: sum((e) => e.failedCalls),
    failedCents: sum((e) => e.failedCents),
    failedByStatus: failed,
    byEndpoint,
    rows,
    changes,
    minimum,
    // A run that stopped early (cap, quota, Ctrl-C) or finished a cycle others began did part
    // of the work: its cents over the whole minimum would read as a bargain.
    costRatio: whole && minimum.cents > 0 ? cents / minimum.cents : null,
    costRatioIfFailedBilled:
      whole && minimum.cents > 0 ? (cents + sum((e) => e.failedCents)) / minimum.cents : null,
    earlierCycleRuns,
    serviceDays: mode === 'full' && readAll(input.status) ? before.days : null,
    centsPerChangedItem: mode === 'incremental' && changedItems > 0 ? cents / changedItems : null,
    pausedUntil: input.pausedUntil,
    quotaResetsAt: input.quotaResetsAt,
    failures: {
      terminal: input.terminalFailures,
      transient: input.transientFailures,
      internal: input.internalFailures,
    },
    owedJobs: input.owedJobs,
    owed,
    inFlight: input.inFlight ?? null,
    quarantined: input.quarantined,
    failedJobs: input.failedJobs ?? 0,
    earlierInCycle: input.earlierInCycle ?? { records: 0, failedJobs: 0 },
    released: input.released ?? 0,
    gone: input.gone ?? 0,
    refetched: input.refetched ?? 0,
    wrongBaseUrl: input.wrongBaseUrl ?? false,
    flagged,
    overflow,
  };
}
