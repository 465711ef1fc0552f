import type { Admission, AdmissionNow, CallOutcome, CallTicket } from '../domain/calls.ts';
import type { EndpointName } from '../domain/endpoints.ts';

export interface GovernorStatus {
  limit: number | null;
  remaining: number | null;
  resetAt: Date | null;
  reserve: number;
  inFlight: number;
  /** Cents held by the calls in flight (counted against both budgets until settled). */
  inFlightCents: number;
  pausedUntil: Date | null;
  centsToday: number;
  centsThisRun: number;
  callsThisRun: number;
  maxCentsPerRun: number | null;
  maxCentsPerDay: number | null;
  /** Service clock minus local clock, in ms (0 until a Date header was seen). */
  clockOffsetMs: number;
}

export interface GovernorLimits {
  /** Quota calls left untouched for the account's other applications. */
  reserveCalls: number;
  /** Same, as a percentage of X-RateLimit-Limit; the larger of the two applies. */
  reservePercent: number;
  /** Per-run cent cap; null: none. */
  maxCentsPerRun: number | null;
  /** Per-UTC-day cent cap (service clock); null: none. */
  maxCentsPerDay: number | null;
  /** Upper bound of the random delay added after a reset, in ms, so workers do not stampede. */
  resumeJitterMs: number;
}

/**
 * Every paid call asks the governor first and reports back after. The in-memory governor
 * and the Redis governor (shared by all worker processes) implement the same interface and
 * pass the same tests.
 */
export interface Governor {
  /** Reserve one quota unit and the endpoint's cents, or say why not and until when. */
  admit(endpoint: EndpointName): Promise<Admission>;
  /**
   * During a quota pause, admit one call that re-reads the quota (at most one in flight, at
   * most one per `intervalMs` across every process); its settle takes the remaining it reports
   * as it is (a raised quota) and ends the pause when that leaves more than the reserve.
   * Refused 'busy' when no pause is in force, 'paused' (until the next recheck is due) when
   * one is in flight or too recent; the cent caps apply as to any call.
   */
  recheck(endpoint: EndpointName, intervalMs: number): Promise<Admission>;
  /** Reconcile after the response (or failure) of an admitted call. */
  settle(ticket: CallTicket, outcome: CallOutcome): Promise<void>;
  /** Release a ticket whose request was never sent (e.g. aborted before dispatch). */
  release(ticket: CallTicket): Promise<void>;
  /** admit, settle and release without a promise each, when the governor needs no I/O. */
  now?: AdmissionNow;
  /**
   * Seed today's spend from the warehouse ledger so a restart never forgets it. `dayUtc` is the
   * service's day; `clockOffsetMs`, the service's clock offset the last run recorded, stands
   * for the service's clock until a response tells it, so the day cap's first calls are
   * counted on that day, not on this machine's.
   */
  seedSpend(centsToday: number, dayUtc: string, clockOffsetMs?: number): Promise<void>;
  /** Begin a new run: resets the per-run counters. */
  startRun(runId: string): Promise<void>;
  status(): Promise<GovernorStatus>;
  /** Local Date at which the pause ends (service reset converted with the clock offset), or null. */
  pausedUntil(): Promise<Date | null>;
  close(): Promise<void>;
}
