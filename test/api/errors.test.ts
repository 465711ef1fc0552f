import { describe, expect, it } from 'vitest';
import {
  ApiError,
  PaymentRequiredError,
  RateLimitedError,
  UnauthorizedError,
  errorForStatus,
  parseErrorBody,
  redact,
  RAW_BODY_MAX_CHARS,
} from '../../src/api/errors.ts';
import { EMPTY_RATE_LIMIT } from '../../src/api/rate-limit.ts';

describe('error bodies', () => {
  it('reads the spec envelope without keeping the raw body', () => {
    expect(parseErrorBody('{"error":{"code":"NOT_FOUND","message":"No fragrance x"}}')).toEqual({
      apiCode: 'NOT_FOUND',
      apiMessage: 'No fragrance x',
    });
  });

  it('reads other JSON layouts and keeps them raw', () => {
    const a = parseErrorBody('{"code":"BAD_PARAM","message":"limit too big"}');
    expect(a).toMatchObject({ apiCode: 'BAD_PARAM', apiMessage: 'limit too big' });
    expect(a.rawBody).toContain('BAD_PARAM');
    expect(parseErrorBody('{"error":"INVALID_QUERY"}')).toMatchObject({ apiCode: 'INVALID_QUERY' });
    expect(parseErrorBody('{"error":"something broke"}')).toMatchObject({
      apiCode: null,
      apiMessage: 'something broke',
    });
    expect(parseErrorBody('[1,2]')).toMatchObject({ apiCode: null, rawBody: '[1,2]' });
  });

  it('finds a code in a text body and truncates it', () => {
    const long = `INVALID_QUERY: q is too short ${'x'.repeat(2000)}`;
    const body = parseErrorBody(long);
    expect(body.apiCode).toBe('INVALID_QUERY');
    expect(body.rawBody).toHaveLength(RAW_BODY_MAX_CHARS);
    expect(parseErrorBody('BADREQ: limit too big')).toMatchObject({
      apiCode: 'BADREQ',
      apiMessage: 'limit too big',
    });
    expect(parseErrorBody('Internal Server Error')).toMatchObject({
      apiCode: null,
      rawBody: 'Internal Server Error',
    });
    expect(parseErrorBody('')).toEqual({ apiCode: null, apiMessage: null });
  });

  it('redacts a secret everywhere', () => {
    expect(redact('bad key sk-123, sk-123!', 'sk-123')).toBe('bad key [REDACTED], [REDACTED]!');
  });
});

describe('error classes by status', () => {
  const base = {
    endpoint: 'getFragrance' as const,
    apiCode: null,
    apiMessage: null,
    rateLimit: EMPTY_RATE_LIMIT,
  };

  it('maps statuses to codes and transience', () => {
    const cases: [number, string, boolean, unknown][] = [
      [400, 'API_CLIENT_ERROR', false, ApiError],
      [401, 'UNAUTHORIZED', false, UnauthorizedError],
      [402, 'PAYMENT_REQUIRED', false, PaymentRequiredError],
      [404, 'NOT_FOUND', false, ApiError],
      [422, 'API_CLIENT_ERROR', false, ApiError],
      [429, 'RATE_LIMITED', true, RateLimitedError],
      [500, 'API_SERVER_ERROR', true, ApiError],
      [503, 'API_SERVER_ERROR', true, ApiError],
      [0, 'NETWORK', true, ApiError],
    ];
    for (const [status, code, transient, cls] of cases) {
      const err = errorForStatus({ ...base, status, context: { id: 'a/b' } });
      expect(err, String(status)).toBeInstanceOf(cls as never);
      expect(err.code).toBe(code);
      expect(err.transient).toBe(transient);
      expect(err.message).toContain('/v1/fragrances/{id}');
      expect(err.message).toContain('id=a/b');
      expect(JSON.parse(JSON.stringify(err))).toMatchObject({
        code,
        status,
        endpoint: '/v1/fragrances/{id}',
      });
    }
  });

  it('429 takes resetAt from the header, else the message, else the next UTC midnight', () => {
    const header = new Date('2026-05-01T00:00:00Z');
    const fromHeader = new RateLimitedError({
      ...base,
      status: 429,
      rateLimit: { ...EMPTY_RATE_LIMIT, resetAt: header },
    });
    expect(fromHeader.resetAt).toEqual(header);
    const fromMessage = new RateLimitedError({
      ...base,
      status: 429,
      apiMessage: 'Daily rate limit exceeded. Resets at 2026-06-01T00:00:00.000Z.',
    });
    expect(fromMessage.resetAt.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    const fallback = new RateLimitedError({
      ...base,
      status: 429,
      rateLimit: { ...EMPTY_RATE_LIMIT, serverDate: new Date('2026-07-01T10:00:00Z') },
    });
    expect(fallback.resetAt.toISOString()).toBe('2026-07-02T00:00:00.000Z');
    expect(fallback.context.resetAt).toBe('2026-07-02T00:00:00.000Z');
  });
});
