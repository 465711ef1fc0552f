import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  NEVER_ABORTED,
  haltOf,
  untilHalted,
  type ApiCallItem,
  type RateLimitInfo,
  type SentCall,
} from '../domain/calls.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import {
  abortReason,
  admitted,
  admittedNow,
  released,
  settled,
  sleep,
  type AdmissionDeps,
} from './admitted.ts';
import { ApiError } from './errors.ts';
import { wasUnbuildable, type AttemptResult, type Transport } from './http.ts';
import { describeContext, errorCode, interpret, type AnswerSpec, type Interpreted } from './interpret.ts';
import { EMPTY_RATE_LIMIT } from './rate-limit.ts';

export type { CallAdmission } from './admitted.ts';

export interface ApiResponse<T> {
  data: T;
  status: number;
  rateLimit: RateLimitInfo;
  endpoint: EndpointName;
}

export interface CallerDeps extends AdmissionDeps {
  /** The wire (http.ts), or a stored answer played back (sync/revalidate.ts). */
  transport: Pick<Transport, 'send' | 'close'>;
  apiKey: string;
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
  /**
   * Told the moment an answer 402 or 401 is read (domain/calls.ts haltOf), before its slot
   * goes to the next request: a request that holds a ticket already and waits for a slot
   * would leave, and be refused alike, if the halt came only with the job's end.
   */
  onRunStop?: () => void;
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

/** Call ids: unique within this process (a random prefix tells processes apart in a journal). */
const CALL_PREFIX = randomUUID().slice(0, 8);
let callSeq = 0;
const nextCallId = (): string => `${CALL_PREFIX}-${++callSeq}`;

let lastIsoMs = NaN;
let lastIso = '';

/** `ms` as an ISO string, made once per millisecond: requests leave in bursts of one turn. */
function isoAt(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIsoMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base * 2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
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
    // Without a promise when nothing has to wait (the in-process governor, a free slot).
    const { ticket, release } =
      admittedNow(deps, spec.endpoint) ?? (await admitted(deps, spec.endpoint, before));
    let startedAt: number;
    /** startedAt as the journal and the ledger write it: made once per attempt, for both. */
    let at: string;
    let callId: string | undefined;
    let r: AttemptResult;
    try {
      startedAt = Date.now();
      const sentAt = (at = isoAt(startedAt));
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
              sent: () => onSent({ callId: id!, at: sentAt, method, endpoint: template, costCents }),
            },
          },
          own,
        );
      } finally {
        meter?.wireChange(-1);
      }
      if (deps.onRunStop && 'status' in r && haltOf(r.status)) deps.onRunStop();
    } finally {
      release?.();
    }
    let outcome: Interpreted<T>;
    if (r.kind === 'notSent') {
      // Nothing left this machine: no quota used, nothing billed, so no ledger row.
      if (ticket) await released(deps.admission!, ticket);
      const unbuildable = wasUnbuildable(r.error);
      const message = unbuildable
        ? `the request could not be built, nothing was sent (${errorCode(r.error)})${describeContext(spec.context)}`
        : `connection failed before sending (${errorCode(r.error)})${describeContext(spec.context)}`;
      const init = {
        endpoint: spec.endpoint,
        status: 0,
        rateLimit: EMPTY_RATE_LIMIT,
        apiCode: null,
        apiMessage: null,
        context: spec.context,
        message,
      };
      const error = unbuildable ? new ApiError(init, 'API_CLIENT_ERROR', false) : new ApiError(init);
      outcome = { ok: false, retry: !unbuildable, error };
      deps.logger?.warn({ endpoint: template, attempt, error: errorCode(r.error) }, 'api request not sent');
    } else {
      const status = r.kind === 'noResponse' ? 0 : r.status;
      if (status === 429 && deps.refusals) deps.refusals.n++;
      const rateLimit = r.kind === 'noResponse' ? EMPTY_RATE_LIMIT : r.rateLimit;
      try {
        if (ticket) {
          const settling = settled(deps.admission!, ticket, { status, rateLimit });
          if (settling) await settling;
        }
      } finally {
        if (deps.onCall) {
          const call: ApiCallItem = {
            kind: 'apiCall',
            at,
            method,
            endpoint: template,
            status,
            costCents,
            quotaRemaining: rateLimit.remaining,
          };
          if (callId !== undefined) call.callId = callId;
          deps.onCall(call);
        }
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
            ms: Date.now() - startedAt,
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
