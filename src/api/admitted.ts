/**
 * Before an attempt is sent: the governor's ticket, then a request slot (requests on the wire
 * per process). The part of a call that waits, apart from the loop that sends and ledgers
 * (request.ts).
 */
import { BudgetExhaustedError, QuotaPausedError, RunHaltedError } from '../errors.ts';
import type { Admission, AdmissionNow, CallOutcome, CallTicket } from '../domain/calls.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import type { RequestSlots } from './slots.ts';
import { nextUtcMidnight } from './rate-limit.ts';

/**
 * The client's port to whatever rations paid calls (the governor, which fits it without
 * knowing the client): every attempt is admitted first, then settled with what its answer
 * said about the quota, or released when nothing was sent.
 */
export interface CallAdmission {
  admit(endpoint: EndpointName): Promise<Admission>;
  settle(ticket: CallTicket, outcome: CallOutcome): Promise<void>;
  release(ticket: CallTicket): Promise<void>;
  /** The same three without a promise each (the in-process governor); absent: the promises. */
  now?: AdmissionNow;
}

/** What admitted() needs of the caller's dependencies (request.ts's CallerDeps). */
export interface AdmissionDeps {
  /** Requests on the wire for the whole process (http.concurrency); none: unbounded. */
  slots?: RequestSlots;
  /** Requests asking for a ticket, or holding one while they wait for a slot (see admitted). */
  lane?: RequestSlots;
  /** Answers 429 this client (all its views) has read: a ticket older than one is not used. */
  refusals?: { n: number };
  admission?: CallAdmission;
}

export interface Admitted {
  ticket: CallTicket | null;
  release: (() => void) | null;
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error a refusal other than 'busy' stops the call with. */
function refusedError(a: Exclude<Admission, { ok: true }>, endpoint: EndpointName): Error {
  const context = { endpoint: ENDPOINTS[endpoint].template, reason: a.reason };
  switch (a.reason) {
    case 'paused':
      return new QuotaPausedError(a.until ?? nextUtcMidnight(new Date()), a.message, context);
    case 'payment_required':
      return new RunHaltedError('PAYMENT_REQUIRED', a.message, context);
    case 'unauthorized':
      return new RunHaltedError('UNAUTHORIZED', a.message, context);
    default:
      return new BudgetExhaustedError(a.message, context);
  }
}

/** Ask until admitted; 'busy' only means other calls hold the headroom for a moment. */
async function admit(
  admission: CallAdmission,
  endpoint: EndpointName,
  signal?: AbortSignal,
): Promise<CallTicket> {
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    const a = admission.now ? admission.now.admit(endpoint) : await admission.admit(endpoint);
    if (a.ok) return a.ticket;
    if (a.reason !== 'busy') throw refusedError(a, endpoint);
    await sleep(10 + Math.random() * 40, signal);
  }
}

function releaseTicket(admission: CallAdmission, ticket: CallTicket): Promise<void> | void {
  return admission.now ? admission.now.release(ticket) : admission.release(ticket);
}

/**
 * admitted() without a promise, when nothing has to wait: the lane and a slot are free and
 * the governor answers synchronously and admits. Null: take admitted() (nothing is held, no
 * ticket issued). A refusal other than 'busy' is thrown as admitted() would throw it.
 */
export function admittedNow(deps: AdmissionDeps, endpoint: EndpointName): Admitted | null {
  const now = deps.admission?.now;
  if ((deps.admission && !now) || (deps.slots && !deps.slots.canTake())) return null;
  const leave = deps.lane ? deps.lane.tryAcquire() : null;
  if (deps.lane && !leave) return null;
  try {
    let ticket: CallTicket | null = null;
    if (now) {
      // Nothing waits between asking and the answer: the meter's 'governor' time is nil.
      const a = now.admit(endpoint);
      if (!a.ok) {
        if (a.reason === 'busy') return null; // asked again by admitted(), after its pause
        throw refusedError(a, endpoint);
      }
      ticket = a.ticket;
    }
    // Free a moment ago, and nothing ran since: a slot is taken without waiting.
    return { ticket, release: deps.slots ? deps.slots.tryAcquire() : null };
  } finally {
    leave?.();
  }
}

/**
 * The governor's ticket, then a request slot (requests on the wire per process), released by
 * the caller once the answer is read. Admission is asked while the slots carry other
 * requests: with the shared governor it is a Redis round trip, which a slot held meanwhile
 * would spend idle. `lane` bounds the requests asking for a ticket or holding one while they
 * wait for a slot (http.concurrency), so the quota headroom and cents held beyond the requests
 * on the wire are bounded too; a request waiting for the lane holds none.
 */
export async function admitted(
  deps: AdmissionDeps,
  endpoint: EndpointName,
  before: AbortSignal | undefined,
): Promise<Admitted> {
  const leave = deps.lane ? await deps.lane.acquire(before) : null;
  const meter = deps.slots?.meter;
  let ticket: CallTicket | null = null;
  try {
    for (;;) {
      const refusals = deps.refusals?.n;
      if (deps.admission) {
        meter?.admitting(1);
        try {
          ticket = await admit(deps.admission, endpoint, before);
        } finally {
          meter?.admitting(-1);
        }
      }
      const release = deps.slots ? await deps.slots.acquire(before) : null;
      if (before?.aborted) {
        release?.();
        throw abortReason(before);
      }
      if (!ticket || deps.refusals?.n === refusals) return { ticket, release };
      // The service refused a request for quota while this one waited (another application
      // drained it): its ticket predates the pause that follows, so it is given back and asked
      // again, and the governor says 'paused' instead of the service saying 429.
      release?.();
      const stale = ticket;
      ticket = null;
      await releaseTicket(deps.admission!, stale);
    }
  } catch (err) {
    if (ticket) await releaseTicket(deps.admission!, ticket);
    throw err;
  } finally {
    leave?.();
  }
}

/** Give back a ticket whose request was never sent. */
export function released(admission: CallAdmission, ticket: CallTicket): Promise<void> | void {
  return releaseTicket(admission, ticket);
}

/** Settle a ticket with its answer: synchronously when the governor can. */
export function settled(
  admission: CallAdmission,
  ticket: CallTicket,
  outcome: CallOutcome,
): Promise<void> | void {
  return admission.now ? admission.now.settle(ticket, outcome) : admission.settle(ticket, outcome);
}
