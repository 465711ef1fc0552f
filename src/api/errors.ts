import { FragsyncError, type ErrorCode, type ErrorContext } from '../errors.ts';
import type { RateLimitInfo } from '../domain/calls.ts';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import { nextUtcMidnight, parseResetFromMessage } from './rate-limit.ts';

/** Non-envelope bodies are kept for diagnosis, but only this much of them. */
export const RAW_BODY_MAX_CHARS = 500;

export interface ErrorBody {
  apiCode: string | null;
  apiMessage: string | null;
  /** Set when the body is not the spec's `{ error: { code, message } }` envelope. */
  rawBody?: string;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

// Codes look like NOT_FOUND, INVALID_QUERY, RATE_LIMIT_EXCEEDED: capitals joined by '_'.
const CODE_TOKEN = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/;
const LEADING_CODE = /^([A-Z][A-Z0-9_]{2,})\s*:\s*([\s\S]*)$/;

/**
 * What an error body says. The spec only fixes the layout of 429; other statuses may carry
 * the envelope, another JSON layout or plain text, so every form is read for a code.
 */
export function parseErrorBody(text: string): ErrorBody {
  const trimmed = text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    parsed = undefined;
  }
  const rawBody = trimmed.slice(0, RAW_BODY_MAX_CHARS);
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const o = parsed as Record<string, unknown>;
    const err = o.error;
    if (err !== null && typeof err === 'object' && !Array.isArray(err)) {
      const e = err as Record<string, unknown>;
      const body: ErrorBody = { apiCode: str(e.code), apiMessage: str(e.message) };
      return body.apiCode !== null ? body : { ...body, rawBody };
    }
    const errStr = str(err);
    const apiCode = str(o.code) ?? (errStr && CODE_TOKEN.test(errStr) ? errStr : null);
    const apiMessage = str(o.message) ?? str(o.detail) ?? errStr;
    return { apiCode, apiMessage, rawBody };
  }
  if (trimmed === '') return { apiCode: null, apiMessage: null };
  // 'CODE: message' is the common plain-text layout; the code then needs no underscore.
  const prefixed = LEADING_CODE.exec(rawBody);
  if (prefixed?.[1]) return { apiCode: prefixed[1], apiMessage: prefixed[2]?.trim() || null, rawBody };
  return { apiCode: CODE_TOKEN.exec(trimmed)?.[0] ?? null, apiMessage: rawBody, rawBody };
}

export interface ApiErrorInit extends ErrorBody {
  endpoint: EndpointName;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  rateLimit: RateLimitInfo;
  /** Safe identifying context (id, slug, page); never headers. */
  context?: ErrorContext;
  cause?: unknown;
  /** Overrides the default message (used for network failures). */
  message?: string;
}

function defaultCode(status: number): ErrorCode {
  if (status === 0) return 'NETWORK';
  if (status === 404) return 'NOT_FOUND';
  if (status >= 500) return 'API_SERVER_ERROR';
  return 'API_CLIENT_ERROR';
}

function describe(init: ApiErrorInit): string {
  if (init.message) return init.message;
  const what = [init.apiCode, init.apiMessage].filter((s) => s !== null && s !== undefined).join(': ');
  const where = Object.entries(init.context ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return `HTTP ${init.status}${what ? ` ${what}` : ''}${where ? ` (${where})` : ''}`;
}

/** A response (or the lack of one) that was not a usable 200. */
export class ApiError extends FragsyncError {
  readonly status: number;
  readonly apiCode: string | null;
  readonly apiMessage: string | null;
  readonly rawBody?: string;
  readonly rateLimit: RateLimitInfo;
  readonly endpoint: EndpointName;

  constructor(init: ApiErrorInit, code: ErrorCode = defaultCode(init.status), transient?: boolean) {
    const template = ENDPOINTS[init.endpoint].template;
    super(code, `${ENDPOINTS[init.endpoint].method} ${template}: ${describe(init)}`, {
      transient: transient ?? (code === 'NETWORK' || code === 'API_SERVER_ERROR'),
      cause: init.cause,
      context: {
        endpoint: template,
        status: init.status,
        apiCode: init.apiCode,
        ...init.context,
      },
    });
    this.status = init.status;
    this.apiCode = init.apiCode;
    this.apiMessage = init.apiMessage;
    if (init.rawBody !== undefined) this.rawBody = init.rawBody;
    this.rateLimit = init.rateLimit;
    this.endpoint = init.endpoint;
  }
}

/** 401: the key is missing or wrong; nothing will work until the user fixes it. */
export class UnauthorizedError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'UNAUTHORIZED', false);
  }
}

/** 402: the prepaid balance is spent; stop the run cleanly and resume after a top-up. */
export class PaymentRequiredError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'PAYMENT_REQUIRED', false);
  }
}

/** 429: the account's daily quota is used up; the governor pauses everyone until `resetAt`. */
export class RateLimitedError extends ApiError {
  readonly resetAt: Date;
  constructor(init: ApiErrorInit) {
    super(init, 'RATE_LIMITED', true);
    this.resetAt =
      init.rateLimit.resetAt ??
      parseResetFromMessage(init.apiMessage) ??
      parseResetFromMessage(init.rawBody) ??
      nextUtcMidnight(init.rateLimit.serverDate ?? new Date());
    this.context.resetAt = this.resetAt.toISOString();
  }
}

/** The error class for a non-200 response. */
export function errorForStatus(init: ApiErrorInit): ApiError {
  switch (init.status) {
    case 401:
      return new UnauthorizedError(init);
    case 402:
      return new PaymentRequiredError(init);
    case 429:
      return new RateLimitedError(init);
    default:
      return new ApiError(init);
  }
}

/** Statuses worth sending again: the server failed, not the request. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 && status <= 599;
}

/** Remove every occurrence of the secret from text that came from the outside world. */
export function redact(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[REDACTED]');
}
