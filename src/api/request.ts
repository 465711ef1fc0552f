import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  BudgetExhaustedError,
  QuotaPausedError,
  ResponseInvalidError,
  type ErrorContext,
} from '../errors.ts';
import type {
  Admission,
  ApiCallItem,
  CallOutcome,
  CallTicket,
  RateLimitInfo,
  SentCall,
} from '../domain/calls.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import { ApiError, errorForStatus, isRetryableStatus, parseErrorBody, redact } from './errors.ts';
import type { AttemptResult, Transport } from './http.ts';
import { surelyExact } from './fast-check.ts';
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
  transport: Transport;
  /** Requests in flight for the whole process (http.concurrency); none: unbounded. */
  slots?: RequestSlots;
  apiKey: string;
  admission?: CallAdmission;
  onCall?: (call: ApiCallItem) => void;
  /**
   * Called the moment an attempt's headers go onto the wire, before any answer (the journal
   * records it, so a process killed meanwhile still ledgers the call). Its ApiCallItem then
   * carries the same callId.
   */
  onSent?: (call: SentCall) => void;
  logger?: Logger;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface CallSpec<T> {
  endpoint: EndpointName;
  /** Encoded path (buildPath). */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  schema: z.ZodType<T>;
  /** What the call is about (id, slug, page), for error messages and logs. */
  context: ErrorContext;
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

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  return typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'unknown';
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((i) => {
      const path = i.path.reduce<string>(
        (acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)),
        '',
      );
      return `${path || '(root)'}: ${i.message}`;
    })
    .join('; ');
}

function describeContext(context: ErrorContext): string {
  const parts = Object.entries(context).filter(([, v]) => v !== undefined);
  return parts.length ? ` (${parts.map(([k, v]) => `${k}=${String(v)}`).join(' ')})` : '';
}

type Interpreted<T> = { ok: true; data: T } | { ok: false; error: Error; retry: boolean };

/** Turn one attempt into data or an error, and say whether another attempt may help. */
function interpret<T>(
  deps: CallerDeps,
  spec: CallSpec<T>,
  r: Exclude<AttemptResult, { kind: 'notSent' }>,
): Interpreted<T> {
  const base = { endpoint: spec.endpoint, context: spec.context, apiCode: null, apiMessage: null };
  if (r.kind === 'noResponse') {
    const message = `no response (${errorCode(r.error)})${describeContext(spec.context)}`;
    return {
      ok: false,
      retry: true,
      error: new ApiError({ ...base, status: 0, rateLimit: EMPTY_RATE_LIMIT, message }),
    };
  }
  if (r.kind === 'bodyFailed') {
    if (r.status >= 200 && r.status < 300) {
      const message = `HTTP ${r.status} body broke off (${errorCode(r.error)})${describeContext(spec.context)}`;
      return {
        ok: false,
        retry: true,
        error: new ApiError({ ...base, status: r.status, rateLimit: r.rateLimit, message }, 'NETWORK', true),
      };
    }
    const error = errorForStatus({ ...base, status: r.status, rateLimit: r.rateLimit });
    return { ok: false, retry: isRetryableStatus(r.status), error };
  }
  if (r.status < 200 || r.status >= 300) {
    const body = parseErrorBody(redact(r.text, deps.apiKey));
    const error = errorForStatus({ ...base, ...body, status: r.status, rateLimit: r.rateLimit });
    return { ok: false, retry: isRetryableStatus(r.status), error };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.text);
  } catch {
    // A 200 whose JSON does not parse was cut short or garbled on the way: try again.
    const message = `HTTP ${r.status} body is not valid JSON (${r.text.length} chars, truncated?)${describeContext(spec.context)}`;
    return {
      ok: false,
      retry: true,
      error: new ApiError(
        { ...base, status: r.status, rateLimit: r.rateLimit, message },
        'API_SERVER_ERROR',
        true,
      ),
    };
  }
  // The hot responses, when already exactly what zod would return, are used as they are.
  if (surelyExact(spec.endpoint, parsed)) return { ok: true, data: parsed as T };
  const result = spec.schema.safeParse(parsed);
  if (result.success) return { ok: true, data: result.data };
  const raw: unknown = r.text.includes(deps.apiKey) ? JSON.parse(redact(r.text, deps.apiKey)) : parsed;
  const template = ENDPOINTS[spec.endpoint].template;
  const message = `invalid response${describeContext(spec.context)} at ${formatIssues(result.error.issues)}`;
  return {
    ok: false,
    retry: false,
    error: new ResponseInvalidError(template, message, raw, { endpointName: spec.endpoint, ...spec.context }),
  };
}

/** One logical call: validate nothing here (callers did), loop over attempts, each governed and ledgered. */
export async function performCall<T>(
  deps: CallerDeps,
  spec: CallSpec<T>,
  signal?: AbortSignal,
): Promise<ApiResponse<T>> {
  const { method, template, costCents } = ENDPOINTS[spec.endpoint];
  for (let attempt = 0; ; attempt++) {
    // A request slot first (requests in flight per process), then the governor's ticket: a
    // job waiting for a slot holds no quota headroom. The slot is free again once the answer
    // is read, before it is settled and interpreted.
    const release = deps.slots ? await deps.slots.acquire(signal) : null;
    let ticket: CallTicket | null = null;
    let startedAt: Date;
    let callId: string | undefined;
    let r: AttemptResult;
    try {
      ticket = deps.admission ? await admit(deps.admission, spec.endpoint, signal) : null;
      if (signal?.aborted) {
        if (ticket) await deps.admission!.release(ticket);
        throw abortReason(signal);
      }
      const sentAt = (startedAt = new Date());
      const onSent = deps.onSent;
      const id = (callId = onSent ? nextCallId() : undefined);
      r = await deps.transport.send(
        {
          method,
          path: spec.path,
          query: spec.query,
          body: spec.body,
          apiKey: deps.apiKey,
          onSent: onSent && {
            callId: id!,
            call: () =>
              onSent({ callId: id!, at: sentAt.toISOString(), method, endpoint: template, costCents }),
          },
        },
        signal,
      );
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
      const rateLimit = r.kind === 'noResponse' ? EMPTY_RATE_LIMIT : r.rateLimit;
      try {
        if (ticket) await deps.admission!.settle(ticket, { status, rateLimit });
      } finally {
        deps.onCall?.({
          kind: 'apiCall',
          at: startedAt.toISOString(),
          method,
          endpoint: template,
          status,
          costCents,
          quotaRemaining: rateLimit.remaining,
          ...(callId === undefined ? {} : { callId }),
        });
      }
      deps.logger?.debug(
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
      outcome = interpret(deps, spec, r);
      if (outcome.ok) return { data: outcome.data, status, rateLimit, endpoint: spec.endpoint };
    }
    if (!outcome.retry || attempt >= deps.maxRetries) throw outcome.error;
    const waitMs = backoffMs(attempt, deps.retryBaseMs, deps.retryMaxMs);
    deps.logger?.warn(
      { endpoint: template, attempt, waitMs, code: (outcome.error as ApiError).code },
      'api call will be retried',
    );
    await sleep(waitMs, signal);
  }
}
