import { describe, expect, it } from 'vitest';
import { nextUtcMidnight, parseRateLimit, parseResetFromMessage } from '../../src/api/rate-limit.ts';

describe('rate-limit headers', () => {
  it('reads the three headers and the Date header', () => {
    const info = parseRateLimit({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '37',
      'x-ratelimit-reset': '1767225600',
      date: 'Wed, 31 Dec 2025 12:00:00 GMT',
    });
    expect(info.limit).toBe(1000);
    expect(info.remaining).toBe(37);
    expect(info.resetAt?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(info.serverDate?.toISOString()).toBe('2025-12-31T12:00:00.000Z');
  });

  it('turns absent or garbled values into null, and takes the first of repeated ones', () => {
    expect(parseRateLimit({})).toEqual({ limit: null, remaining: null, resetAt: null, serverDate: null });
    const info = parseRateLimit({
      'x-ratelimit-limit': 'lots',
      'x-ratelimit-remaining': ['0', '5'],
      'x-ratelimit-reset': '-3',
      date: 'yesterday',
    });
    expect(info).toEqual({ limit: null, remaining: 0, resetAt: null, serverDate: null });
  });
});

describe('reset time in a 429 message', () => {
  it('parses the spec sentence', () => {
    expect(
      parseResetFromMessage('Daily rate limit exceeded. Resets at 2026-03-04T00:00:00.000Z.')?.toISOString(),
    ).toBe('2026-03-04T00:00:00.000Z');
    expect(
      parseResetFromMessage('Daily rate limit exceeded. Resets at 2026-03-04T00:00:00Z.')?.toISOString(),
    ).toBe('2026-03-04T00:00:00.000Z');
  });

  it('reads a stamp without a zone as UTC and a stamp with an offset as given', () => {
    expect(parseResetFromMessage('Resets at 2026-03-04T00:00:00.')?.toISOString()).toBe(
      '2026-03-04T00:00:00.000Z',
    );
    expect(parseResetFromMessage('Resets at 2026-03-04T02:00:00+02:00.')?.toISOString()).toBe(
      '2026-03-04T00:00:00.000Z',
    );
  });

  it('returns null when there is no timestamp', () => {
    expect(parseResetFromMessage('Daily rate limit exceeded.')).toBeNull();
    expect(parseResetFromMessage(null)).toBeNull();
  });

  it('knows the next UTC midnight', () => {
    expect(nextUtcMidnight(new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
