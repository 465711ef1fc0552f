import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { BudgetExhaustedError, QuotaPausedError } from '../errors.ts';
import {
  NEVER_ABORTED,
  untilHalted,
  type Admission,
  type ApiCallItem,
  type CallOutcome,
  type CallTicket,
  type RateLimitInfo,
  type SentCall,
} from '../domain/calls.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import { ApiError } from './errors.ts';
import type { AttemptResult, Transport } from './http.ts';
import { describeContext, errorCode, interpret, type AnswerSpec, type Interpreted } from './interpret.ts';
import type { RequestSlots } from './slots.ts';
import { EMPTY_RATE_LIMIT, nextUtcMidnight } from './rate-limit.ts';

export interface ApiResponse<T> {
  data: T;
  status: number;
  rateLimit: RateLimitInfo;
  endpoint: EndpointName;
}

/**
 * The client's port to whatever rations paid calls (the governor, which fits it without
 * knowing the client): every attempt is admitted first, then settled with what its answer
 * said about the quota, or released when nothing was sent.
 */
export interface CallAdmission {
  admit(endpoint: EndpointName): Promise<Admission>;
  settle(ticket: CallTicket, outcome: CallOutcome): Promise<void>;
  release(ticket: CallTicket): Promise<void>;
}

export interface CallerDeps {
  /** The wire (http.ts), or a stored answer played back (sync/revalidate.ts). */
  transport: Pick<Transport, 'send' | 'close'>;
  /** Requests on the wire for the whole process (http.concurrency); none: unbounded. */
  slots?: RequestSlots;
  /** Requests asking for a ticket, or holding one while they wait for a slot (see admitted). */
  lane?: RequestSlots;
  /** Answers 429 this client (all its views) has read: a ticket older than one is not used. */
  refusals?: { n: number };
  apiKey: string;
  admission?: CallAdmission;
  onCall?: (call: ApiCallItem) => void;
  /**
   * Called the moment an attempt's headers go onto the wire, before any answer (the journal
   * records it, so a process killed meanwhile still ledgers the call). Its ApiCallItem then
   * carries the same callId.
   */
  onSent?: (call: SentCall) => void;
  /**
   * Once aborted, no further request leaves: one waiting for a slot, a ticket or a retry
   * stops, one already on the wire is answered and ledgered (aborting it would leave the
   * service's count unknowable). A worker whose run lost its lease stops its jobs this way.
   */
  halt?: AbortSignal;
  logger?: Logger;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface CallSpec<T> extends AnswerSpec<T> {
  /** Encoded path (buildPath). */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

function abortReason(signal: AbortSignal): unknown {
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

/** Call ids: unique within this process (a random prefix tells processes apart in a journal). */
const CALL_PREFIX = randomUUID().slice(0, 8);
let callSeq = 0;
const nextCallId = (): string => `${CALL_PREFIX}-${++callSeq}`;

/** Full-jitter exponential backoff: uniform in [0, min(max, base * 2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

/** Ask until admitted; 'busy' only means other calls hold the headroom for a moment. */
async function admit(
  admission: CallAdmission,
  endpoint: EndpointName,
  signal?: AbortSignal,
): Promise<CallTicket> {
  for (;;) {
    if (signal?.aborted) throw abortReason(signal);
    const a = await admission.admit(endpoint);
    if (a.ok) return a.ticket;
    const context = { endpoint: ENDPOINTS[endpoint].template, reason: a.reason };
    if (a.reason === 'busy') {
      await sleep(10 + Math.random() * 40, signal);
    } else if (a.reason === 'paused') {
      throw new QuotaPausedError(a.until ?? nextUtcMidnight(new Date()), a.message, context);
    } else {
      throw new BudgetExhaustedError(a.message, context);
    }
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
async function admitted(
  deps: CallerDeps,
  endpoint: EndpointName,
  before: AbortSignal | undefined,
): Promise<{ ticket: CallTicket | null; release: (() => void) | null }> {
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
      await deps.admission!.release(stale);
    }
  } catch (err) {
    if (ticket) await deps.admission!.release(ticket);
    throw err;
  } finally {
    leave?.();
  }
}

/** One logical call: validate nothing here (callers did), loop over attempts, each governed and ledgered. */
export async function performCall<T>(
  deps: CallerDeps,
  spec: CallSpec<T>,
  signal?: AbortSignal,
): Promise<ApiResponse<T>> {
  const { method, template, costCents } = ENDPOINTS[spec.endpoint];
  const own = signal === NEVER_ABORTED ? undefined : signal;
  // Before the request is on the wire, a halt stops it too.
  const before = deps.halt ? (own ? untilHalted(own, deps.halt) : deps.halt) : own;
  for (let attempt = 0; ; attempt++) {
    if (before?.aborted) throw abortReason(before);
    // The slot is free again once the answer is read, before it is settled and interpreted.
    const { ticket, release } = await admitted(deps, spec.endpoint, before);
    let startedAt: Date;
    /** startedAt as the journal and the ledger write it: made once per attempt, for both. */
    let at: string;
    let callId: string | undefined;
    let r: AttemptResult;
    try {
      startedAt = new Date();
      const sentAt = (at = startedAt.toISOString());
      const onSent = deps.onSent;
      const id = (callId = onSent ? nextCallId() : undefined);
      const meter = deps.slots?.meter;
      // Counted on the wire from here to its answer read (a refused connection included).
      meter?.wireChange(1);
      try {
        r = await deps.transport.send(
          {
            method,
            path: spec.path,
            query: spec.query,
            body: spec.body,
            apiKey: deps.apiKey,
            onSent: onSent && {
              callId: id!,
              call: () => onSent({ callId: id!, at: sentAt, method, endpoint: template, costCents }),
            },
          },
          own,
        );
      } finally {
        meter?.wireChange(-1);
      }
    } finally {
      release?.();
    }
    let outcome: Interpreted<T>;
    if (r.kind === 'notSent') {
      // Nothing left this machine: no quota used, nothing billed, so no ledger row.
      if (ticket) await deps.admission!.release(ticket);
      const message = `connection failed before sending (${errorCode(r.error)})${describeContext(spec.context)}`;
      const error = new ApiError({
        endpoint: spec.endpoint,
        status: 0,
        rateLimit: EMPTY_RATE_LIMIT,
        apiCode: null,
        apiMessage: null,
        context: spec.context,
        message,
      });
      outcome = { ok: false, retry: true, error };
      deps.logger?.warn({ endpoint: template, attempt, error: errorCode(r.error) }, 'api request not sent');
    } else {
      const status = r.kind === 'noResponse' ? 0 : r.status;
      if (status === 429 && deps.refusals) deps.refusals.n++;
      const rateLimit = r.kind === 'noResponse' ? EMPTY_RATE_LIMIT : r.rateLimit;
      try {
        if (ticket) await deps.admission!.settle(ticket, { status, rateLimit });
      } finally {
        deps.onCall?.({
          kind: 'apiCall',
          at,
          method,
          endpoint: template,
          status,
          costCents,
          quotaRemaining: rateLimit.remaining,
          ...(callId === undefined ? {} : { callId }),
        });
      }
      // Its fields (an ISO string among them) are made only when debug lines are written.
      if (deps.logger?.isLevelEnabled('debug'))
        deps.logger.debug(
          {
            endpoint: template,
            status,
            attempt,
            remaining: rateLimit.remaining,
            reset: rateLimit.resetAt?.toISOString() ?? null,
            ms: Date.now() - startedAt.getTime(),
          },
          'api call',
        );
      if (signal?.aborted) throw abortReason(signal);
      outcome = interpret(deps.apiKey, spec, r);
      if (outcome.ok) return { data: outcome.data, status, rateLimit, endpoint: spec.endpoint };
    }
    if (!outcome.retry || attempt >= deps.maxRetries) throw outcome.error;
    const waitMs = backoffMs(attempt, deps.retryBaseMs, deps.retryMaxMs);
    deps.logger?.warn(
      { endpoint: template, attempt, waitMs, code: (outcome.error as ApiError).code },
      'api call will be retried',
    );
    await sleep(waitMs, before);
  }
}
