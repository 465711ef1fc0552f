import { Pool } from 'undici';
import { CALL_ID_HEADER, Exchange, type SentListener, type Settle } from './exchange.ts';
import { parseRateLimit } from './rate-limit.ts';
import type { RateLimitInfo } from '../domain/calls.ts';

/**
 * One HTTP attempt over a keep-alive undici Pool, classified by how far it got. Retries are
 * NOT done here (nor by undici's RetryHandler): the caller loops, so that every attempt passes
 * the governor and lands in the ledger. A retry layer that hides attempts from the ledger is a
 * bug: the provider may bill each of them.
 */

export interface TransportOptions {
  baseUrl: string;
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path from the template, already encoded, without the base path. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  apiKey: string;
  /**
   * `sent()` is called once, synchronously, when the request's headers are written to the
   * socket (Exchange.onConnect); `callId` names the request in that header. Never called for
   * a request that never left (notSent).
   */
  onSent?: SentListener & { callId: string };
}

export type AttemptResult =
  /** Nothing reached the server (refused, DNS, connect timeout): not a call. */
  | { kind: 'notSent'; error: unknown }
  /** Sent, but no status arrived (reset, headers timeout, abort after dispatch): a call with status 0. */
  | { kind: 'noResponse'; error: unknown }
  /** Status and headers arrived, the body broke off (truncated, body timeout). */
  | { kind: 'bodyFailed'; status: number; rateLimit: RateLimitInfo; error: unknown }
  | { kind: 'response'; status: number; rateLimit: RateLimitInfo; contentType: string; text: string };

// Failures that happen before a single byte of the request was written.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCodes(err: unknown): string[] {
  if (err === null || typeof err !== 'object') return [];
  const e = err as { code?: unknown; errors?: unknown; cause?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  // Node's happy-eyeballs connect reports an AggregateError holding one error per address.
  const inner = Array.isArray(e.errors) ? e.errors.flatMap(errorCodes) : [];
  return [...own, ...inner, ...(e.cause !== undefined && e.cause !== err ? errorCodes(e.cause) : [])];
}

export function wasNeverSent(err: unknown): boolean {
  const codes = errorCodes(err);
  return (
    wasUnbuildable(err) ||
    (codes.length > 0 && codes.every((c) => NOT_SENT_CODES.has(c) || c === 'UND_ERR_CONNECT_TIMEOUT'))
  );
}

/**
 * undici refused to build the request (a header value it will not write, such as a key
 * holding a line break): nothing left, and sending it again fails the same way, so it is
 * terminal, not a network failure to retry.
 */
export function wasUnbuildable(err: unknown): boolean {
  return errorCodes(err).includes('UND_ERR_INVALID_ARG');
}

/** Characters URLSearchParams leaves as they are (application/x-www-form-urlencoded). */
const PLAIN = /^[\w.*-]*$/;

/**
 * `?k=v&…` exactly as URLSearchParams writes it, without making one when every key and value
 * is plain (page numbers, limits: nearly every query); '' for none.
 */
export function queryString(query: Record<string, string>): string {
  let out = '';
  for (const key in query) {
    const value = query[key]!;
    if (!PLAIN.test(key) || !PLAIN.test(value)) return `?${new URLSearchParams(query)}`;
    out += `${out === '' ? '?' : '&'}${key}=${value}`;
  }
  return out;
}

export class Transport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private lastKey = '';
  private lastAuthorization = '';

  constructor(opts: TransportOptions) {
    const url = new URL(opts.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: opts.connections,
      connectTimeout: opts.connectTimeoutMs,
      headersTimeout: opts.headersTimeoutMs,
      bodyTimeout: opts.bodyTimeoutMs,
      pipelining: 1,
    });
  }

  send(req: HttpRequest, signal?: AbortSignal): Promise<AttemptResult> {
    const query = req.query;
    const headers: Record<string, string> = {
      authorization: this.authorization(req.apiKey),
      accept: 'application/json',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    if (req.onSent) headers[CALL_ID_HEADER] = req.onSent.callId;
    const path = `${this.basePath}${req.path}${query === undefined ? '' : queryString(query)}`;
    // One promise per attempt, settled by the handler when the answer is read (exchange.ts).
    return new Promise<AttemptResult>((resolve) => {
      const settle: Settle = (answer, text, error) => {
        if (answer === null)
          resolve(wasNeverSent(error) ? { kind: 'notSent', error } : { kind: 'noResponse', error });
        else {
          const rateLimit = parseRateLimit(answer.headers);
          const status = answer.status;
          if (text === null) resolve({ kind: 'bodyFailed', status, rateLimit, error });
          else {
            const contentType = (answer.headers['content-type'] as string | undefined) ?? '';
            resolve({ kind: 'response', status, rateLimit, contentType, text });
          }
        }
      };
      this.pool.dispatch(
        { method: req.method, path, headers, body },
        new Exchange(signal, settle, req.onSent),
      );
    });
  }

  /** `Bearer <key>`, made once per key rather than per request. */
  private authorization(apiKey: string): string {
    if (apiKey !== this.lastKey) {
      this.lastKey = apiKey;
      this.lastAuthorization = `Bearer ${apiKey}`;
    }
    return this.lastAuthorization;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
