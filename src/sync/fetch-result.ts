import type { JobResult } from '../../jobs/types.ts';
import type { OccupancyFigures } from '../api/occupancy.ts';
import type { StopReason } from '../domain/run.ts';
import type { QuarantineItem } from '../domain/items.ts';
import type { JobOutcome } from '../queue/types.ts';
import { failureKind } from './failure-kind.ts';
import type { SyncTick } from './types.ts';

/** What the fetch stage leaves for the finish stage to judge. */
export interface FetchResult {
  /** Why the run stopped early (budget, 402, 401, quota without waiting), if it did. */
  stop: { reason: StopReason; message: string } | null;
  /** Jobs that failed with the service unreachable, failing or not this API (failure-kind.ts). */
  transientFailures: number;
  firstFailure: string | null;
  /** The error code of firstFailure (NETWORK, API_SERVER_ERROR, NOT_FOUND): which it was. */
  firstFailureCode: string | null;
  /** Jobs that failed for good (another 4xx): recorded in quarantine. */
  terminalFailures: number;
  /** Jobs that failed on an error of the program itself (a bug), not of the service. */
  internalFailures: number;
  firstInternal: string | null;
  /**
   * The latest complete listing of accords and of charts in this run (a re-walk pass replaces
   * the earlier one), or null when the list was not read: what the warehouse knows beyond a
   * complete listing left upstream.
   */
  listed: { accord: Set<string> | null; chart: Set<string> | null };
  /** The first failure of the warehouse or the journal (a full disk): the run fails on it. */
  writeFailure: unknown;
  /** Stopped by the interrupt signal (SyncDeps.interrupt) before the work was done. */
  interrupted: boolean;
  /** How busy the request slots were while jobs ran (null: the client has no slots). */
  occupancy: OccupancyFigures | null;
  /** Jobs owed and never handed to the driver (Admission): still owed when the run ends. */
  notAdmitted: number;
  /** The service's clock minus this machine's as the run ended (ms); null: nothing was answered. */
  clockOffsetMs: number | null;
  /** Items this run's 404s confirmed gone upstream (noteDone): the summary says its 404s did. */
  removalsConfirmed: number;
}

/** A fetch that has seen no outcome yet. */
export function emptyFetchResult(): FetchResult {
  return {
    stop: null,
    transientFailures: 0,
    firstFailure: null,
    firstFailureCode: null,
    terminalFailures: 0,
    internalFailures: 0,
    firstInternal: null,
    listed: { accord: null, chart: null },
    writeFailure: null,
    interrupted: false,
    occupancy: null,
    notAdmitted: 0,
    clockOffsetMs: null,
    removalsConfirmed: 0,
  };
}

/**
 * A done job: what it tells the finish stage and the summary. Its complete listing
 * (noteListing), and the removals a 404 of this run confirmed: a detail job answered 404
 * reports its item removed (jobs/guard.ts). A batch's misses are removals no 404 confirmed,
 * and an earlier run's job's 404 is in that run's ledger, not among this run's failed calls.
 */
export function noteDone(r: FetchResult, o: Extract<JobOutcome, { type: 'done' }>, runId: string): void {
  noteListing(r.listed, o.job.spec.kind, o.result);
  if (o.job.runId !== runId || !o.calls.some((c) => c.status === 404)) return;
  for (const item of o.result.items) if (item.kind === 'removal') r.removalsConfirmed += item.keys.length;
}

/**
 * A job ended: a complete listing of accords or charts (its walk mark says done) replaces the
 * last one. A listing not known complete (an accord walk whose pages did not line up, a list
 * that moved while read) leaves the last complete one in place: what it does not name is
 * removed at the end of the run, so it must be the whole list.
 */
export function noteListing(listed: FetchResult['listed'], kind: string, result: JobResult): void {
  const entity = kind === 'accords' ? 'accord' : kind === 'charts' ? 'chart' : null;
  if (!entity || !result.progress.some((m) => m.kind === 'walk' && m.walk === kind && m.done)) return;
  const keys = new Set<string>();
  for (const item of result.items) if (item.kind === entity) keys.add(item.slug);
  listed[entity] = keys;
}

/**
 * A job that failed for good, counted by what failed (failure-kind.ts); returns its
 * quarantine record.
 */
export function countFailure(r: FetchResult, o: Extract<JobOutcome, { type: 'failed' }>): QuarantineItem {
  const kind = failureKind(o.code, o.job.spec.kind);
  if (kind === 'unreachable') {
    r.transientFailures++;
    if (r.firstFailure === null) [r.firstFailure, r.firstFailureCode] = [o.reason, o.code];
  } else if (kind === 'internal') {
    r.internalFailures++;
    r.firstInternal ??= o.reason;
  } else r.terminalFailures++;
  return {
    kind: 'quarantine',
    endpoint: o.job.spec.kind,
    key: o.job.id,
    reason: `job failed: ${o.reason}`,
    raw: o.job.spec.payload,
    scope: 'job',
  };
}

/** The progress line's phase while fetching: the first half of the jobs is called discovery. */
export function fetchPhase(
  interrupted: boolean,
  pausedUntil: Date | null,
  jobsDone: number,
  jobsScheduled: number,
): SyncTick['phase'] {
  if (interrupted) return 'stopping';
  if (pausedUntil) return 'paused';
  return jobsDone < jobsScheduled / 2 ? 'discovery' : 'details';
}
