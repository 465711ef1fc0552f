/**
 * A paid call's life as the stages see it: the governor admits it (a ticket) and settles it
 * with what the answer said about the quota; the client announces it as it leaves (a
 * SentCall) and reports it once answered (its ledger row, an ApiCallItem); the journal and
 * the warehouse keep both.
 */
import { setMaxListeners } from 'node:events';
import type { EndpointName } from './endpoints.ts';

/** What one response said about the account's quota (all from X-RateLimit-* and Date headers). */
export interface RateLimitInfo {
  /** X-RateLimit-Limit, the account's daily allowance. */
  limit: number | null;
  /** X-RateLimit-Remaining. */
  remaining: number | null;
  /** X-RateLimit-Reset as a Date (or the timestamp in a 429 message when the header is absent). */
  resetAt: Date | null;
  /** The service's clock from the Date header, to correct for local clock skew. */
  serverDate: Date | null;
}

/** A reserved call: one quota unit and its cents, held until settled. */
export interface CallTicket {
  id: string;
  endpoint: EndpointName;
  costCents: number;
  /**
   * The run current when it was admitted: its answer is charged to that run and a 402 or a 401
   * halts that run, even when it comes after the next run started (a worker's late request).
   */
  runId?: string;
}

export type RefusalReason =
  /** Paused (429 seen or remaining at the reserve) until `until`. */
  | 'paused'
  /** Other calls in flight already hold what remains above the reserve; retry shortly. */
  | 'busy'
  /** Admitting would exceed the per-run cent cap. */
  | 'run_budget'
  /** Admitting would exceed the per-day cent cap. */
  | 'day_budget'
  /**
   * A call of the run was answered 402 (the balance is spent) or 401 (the key is refused):
   * none of the run's requests is admitted after it, in any process (error-policy.ts
   * haltsAtOnce), until the next run.
   */
  | 'payment_required'
  | 'unauthorized';

export type Admission =
  | { ok: true; ticket: CallTicket }
  | { ok: false; reason: RefusalReason; until: Date | null; message: string };

/**
 * Admission answered synchronously, by a rationer that needs no I/O for it (the in-memory
 * governor): the same decisions as its promises, without a promise per call each.
 */
export interface AdmissionNow {
  admit(endpoint: EndpointName): Admission;
  settle(ticket: CallTicket, outcome: CallOutcome): void;
  release(ticket: CallTicket): void;
}

/**
 * The answers after which none of the run's requests may leave, in any process, and the stop
 * reason each gives: the service would refuse each alike. The client tells its caller the
 * moment it reads one (CallerDeps.onRunStop), the governor refuses the run's admissions once
 * one is settled, the queue halts at once on their stop reasons (queue/error-policy.ts
 * haltsAtOnce) and so does a quota recheck; all read this table. governor/lua/settle.lua has
 * its own copy (Lua cannot import it): change the two together.
 */
export const HALTING = { 402: 'payment_required', 401: 'unauthorized' } as const;
export type HaltReason = (typeof HALTING)[keyof typeof HALTING];

/** A stop (or refusal) reason that halts the run at once (HALTING). */
export function isHaltReason(reason: string): reason is HaltReason {
  return reason === HALTING[402] || reason === HALTING[401];
}

/** The halt an answer's status gives (HALTING), or null. */
export function haltOf(status: number): HaltReason | null {
  return status === 402 || status === 401 ? HALTING[status] : null;
}

/** How a call ended, for reconciliation. */
export interface CallOutcome {
  /** HTTP status; 0 when no response arrived. */
  status: number;
  rateLimit: RateLimitInfo;
}

/** One HTTP request the sync sent (each attempt of a retried call is one). */
export interface ApiCallItem {
  kind: 'apiCall';
  /** ISO timestamp. */
  at: string;
  method: 'GET' | 'POST';
  /** The path template, e.g. /v1/fragrances/{id}/similar. */
  endpoint: string;
  /** HTTP status, or 0 when no response arrived (network error, timeout). */
  status: number;
  costCents: number;
  quotaRemaining: number | null;
  /** The attempt's id, when its sending was journaled (a SentCall): the two are matched on replay. */
  callId?: string;
}

/**
 * A request whose headers went onto the wire: journaled at that moment, before any answer.
 * A process killed while it was in flight leaves a SentCall without its ApiCallItem; the
 * replay records it as a call without an answer (status 0), so the ledger still holds every
 * request the service may have billed.
 */
export interface SentCall {
  callId: string;
  /** ISO timestamp. */
  at: string;
  method: 'GET' | 'POST';
  endpoint: string;
  costCents: number;
}

/** A request that was sent and never answered, as its ledger row (see unansweredCalls). */
export function unansweredRow(call: SentCall): ApiCallItem {
  return {
    kind: 'apiCall',
    at: call.at,
    method: call.method,
    endpoint: call.endpoint,
    status: 0,
    costCents: call.costCents,
    quotaRemaining: null,
    callId: call.callId,
  };
}

/**
 * "Stop sending, let requests on the wire finish", the one way a run's jobs are stopped
 * (CallerDeps.halt, ExecuteDeps.halt): the in-process driver when the run stops at once (a
 * refused key, a journal that cannot be written), a worker when its run's lease lapsed. Once
 * halted, a request waiting for a slot, a ticket or a retry throws this, and none leaves;
 * one already on the wire is answered and ledgered. A request cut off after it left may or
 * may not be read, and billed, by the service (the reset can reach it first, the more so on
 * a loaded machine), while the journal has already ledgered it as sent: letting it finish
 * keeps api_calls equal to what the service received, for at most one answer's wait per
 * request in flight.
 */
export class Halted extends Error {
  constructor(readonly why: string) {
    super(`no further request may be sent: ${why}`);
    this.name = 'Halted';
  }
}

/** A halt for a run's jobs: `signal` goes to ExecuteDeps.halt, `halt(why)` stops sending. */
export class Halt {
  private readonly ctl = new AbortController();
  readonly signal = this.ctl.signal;

  constructor() {
    // Every request waiting for a slot or a ticket listens to it (performCall's `before`).
    setMaxListeners(0, this.signal);
  }

  halt(why: string): void {
    if (!this.ctl.signal.aborted) this.ctl.abort(new Halted(why));
  }
}

/**
 * The signal of jobs that are never aborted, only halted (the in-process driver's). A request
 * given it listens to nothing for it: neither undici's abort listener on it nor a signal
 * joined with the halt is made per request.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Per job signal, per halt: the signal that aborts with either (see `untilHalted`). */
const joinedSignals = new WeakMap<AbortSignal, WeakMap<AbortSignal, AbortSignal>>();

/**
 * A signal that aborts when the job's `signal` or the run's `halt` does, made once per pair:
 * every request of a job (all jobs share one pair in the in-process driver) asked
 * AbortSignal.any for its own, an object and two listeners per call, 3 to 4% of the
 * fetching thread's profile. Many requests wait on it at once, so it allows any number of
 * listeners; each is removed as its wait ends.
 */
export function untilHalted(signal: AbortSignal, halt: AbortSignal): AbortSignal {
  let byHalt = joinedSignals.get(signal);
  if (!byHalt) joinedSignals.set(signal, (byHalt = new WeakMap()));
  let joined = byHalt.get(halt);
  if (!joined) {
    joined = AbortSignal.any([signal, halt]);
    setMaxListeners(0, joined);
    byHalt.set(halt, joined);
  }
  return joined;
}
