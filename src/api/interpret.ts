/**
 * One attempt's answer turned into data or an error, and whether another attempt may help:
 * the part of a call that reads bytes, apart from the loop that admits, sends and ledgers
 * (request.ts).
 */
import type { z } from 'zod';
import { ResponseInvalidError, type ErrorContext } from '../errors.ts';
import { ENDPOINTS } from '../domain/endpoints.ts';
import { ApiError, errorForStatus, isRetryableStatus, parseErrorBody, redact } from './errors.ts';
import type { AttemptResult } from './http.ts';
import { surelyExact } from './fast-check.ts';
import { EMPTY_RATE_LIMIT } from './rate-limit.ts';
import type { EndpointName } from '../domain/endpoints.ts';

export function errorCode(err: unknown): string {
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

export function describeContext(context: ErrorContext): string {
  const parts = Object.entries(context).filter(([, v]) => v !== undefined);
  return parts.length ? ` (${parts.map(([k, v]) => `${k}=${String(v)}`).join(' ')})` : '';
}

/** What reading an answer needs to know of its call (request.ts's CallSpec extends it). */
export interface AnswerSpec<T> {
  endpoint: EndpointName;
  schema: z.ZodType<T>;
  /** What the call is about (id, slug, page), for error messages and logs. */
  context: ErrorContext;
}

export type Interpreted<T> = { ok: true; data: T } | { ok: false; error: Error; retry: boolean };

/** Turn one attempt into data or an error, and say whether another attempt may help. */
export function interpret<T>(
  apiKey: string,
  spec: AnswerSpec<T>,
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
    const body = parseErrorBody(redact(r.text, apiKey));
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
  const raw: unknown = r.text.includes(apiKey) ? JSON.parse(redact(r.text, apiKey)) : parsed;
  const template = ENDPOINTS[spec.endpoint].template;
  const message = `invalid response${describeContext(spec.context)} at ${formatIssues(result.error.issues)}`;
  return {
    ok: false,
    retry: false,
    error: new ResponseInvalidError(template, message, raw, { endpointName: spec.endpoint, ...spec.context }),
  };
}
