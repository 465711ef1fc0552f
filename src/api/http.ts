import { Pool } from 'undici';
import { parseRateLimit, type HeaderBag } from './rate-limit.ts';
import { CALL_ID_HEADER, whenSent } from './sent-headers.ts';
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
   * Called once, synchronously, when the request's headers are written to the socket (see
   * sent-headers.ts); `callId` names the request in that header. Never called for a request
   * that never left (notSent).
   */
  onSent?: { callId: string; call: () => void };
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
  return codes.length > 0 && codes.every((c) => NOT_SENT_CODES.has(c) || c === 'UND_ERR_CONNECT_TIMEOUT');
}

export class Transport {
  private readonly pool: Pool;
  private readonly basePath: string;

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

  async send(req: HttpRequest, signal?: AbortSignal): Promise<AttemptResult> {
    const search = req.query && Object.keys(req.query).length > 0 ? `?${new URLSearchParams(req.query)}` : '';
    const headers: Record<string, string> = {
      authorization: `Bearer ${req.apiKey}`,
      accept: 'application/json',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    let cancel: (() => void) | null = null;
    if (req.onSent) {
      headers[CALL_ID_HEADER] = req.onSent.callId;
      cancel = whenSent(req.onSent.callId, { sent: req.onSent.call });
    }
    try {
      return await this.attempt(req, search, headers, body, signal);
    } finally {
      cancel?.();
    }
  }

  private async attempt(
    req: HttpRequest,
    search: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    let res;
    try {
      res = await this.pool.request({
        method: req.method,
        path: `${this.basePath}${req.path}${search}`,
        headers,
        body,
        signal,
      });
    } catch (error) {
      return wasNeverSent(error) ? { kind: 'notSent', error } : { kind: 'noResponse', error };
    }
    const rateLimit = parseRateLimit(res.headers as HeaderBag);
    try {
      const text = await res.body.text();
      const ct = res.headers['content-type'];
      const contentType = (Array.isArray(ct) ? ct[0] : ct) ?? '';
      return { kind: 'response', status: res.statusCode, rateLimit, contentType, text };
    } catch (error) {
      return { kind: 'bodyFailed', status: res.statusCode, rateLimit, error };
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
