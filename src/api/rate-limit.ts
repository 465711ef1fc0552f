import type { RateLimitInfo } from '../domain/calls.ts';

/** Headers as undici hands them over: names lower-cased, a value may repeat. */
export type HeaderBag = Record<string, string | string[] | undefined>;

export const EMPTY_RATE_LIMIT: RateLimitInfo = Object.freeze({
  limit: null,
  remaining: null,
  resetAt: null,
  serverDate: null,
}) as RateLimitInfo;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined ? undefined : value.trim();
}

function nonNegativeInt(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** X-RateLimit-Reset is Unix epoch seconds; fractional seconds are tolerated. */
function epochSeconds(value: string | undefined): Date | null {
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) return null;
  const d = new Date(Number(value) * 1000);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The last Date header parsed: it changes once a second, and every response carries one. */
let lastDate: { value: string; ms: number } = { value: '', ms: NaN };

function httpDate(value: string | undefined): Date | null {
  if (value === undefined || value === '') return null;
  if (value !== lastDate.value) lastDate = { value, ms: Date.parse(value) };
  return Number.isNaN(lastDate.ms) ? null : new Date(lastDate.ms);
}

/** Rate-limit state of one response, whatever its status; absent or garbled headers become null. */
export function parseRateLimit(headers: HeaderBag): RateLimitInfo {
  return {
    limit: nonNegativeInt(headerValue(headers, 'x-ratelimit-limit')),
    remaining: nonNegativeInt(headerValue(headers, 'x-ratelimit-remaining')),
    resetAt: epochSeconds(headerValue(headers, 'x-ratelimit-reset')),
    serverDate: httpDate(headerValue(headers, 'date')),
  };
}

const RESETS_AT = /Resets at\s+(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)/i;

/** The reset time stated in a 429 message: 'Daily rate limit exceeded. Resets at <ISO>.' */
export function parseResetFromMessage(message: string | null | undefined): Date | null {
  if (!message) return null;
  const m = RESETS_AT.exec(message);
  if (!m?.[1]) return null;
  // The spec promises UTC; a timestamp written without a zone is read as UTC, not local time.
  const stamp = m[1].replace(/\.$/, ''); // the sentence's full stop, when no zone ends the stamp
  const iso = /(Z|[+-]\d{2}:?\d{2})$/.test(stamp) ? stamp : `${stamp}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** The quota resets at midnight UTC: the next one after `from` (the service's clock when known). */
export function nextUtcMidnight(from: Date): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + 1));
}
