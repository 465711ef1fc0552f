import { describe, expect, it } from 'vitest';
import {
  PaymentRequiredError,
  RateLimitedError,
  UnauthorizedError,
  type ApiErrorInit,
} from '../../src/api/errors.ts';
import {
  BudgetExhaustedError,
  FragsyncError,
  QuotaPausedError,
  ResponseInvalidError,
} from '../../src/errors.ts';
import { decide, MAX_JOB_ATTEMPTS } from '../../src/queue/error-policy.ts';

const init = (status: number): ApiErrorInit => ({
  endpoint: 'getFragrance',
  status,
  rateLimit: { limit: null, remaining: null, resetAt: null, serverDate: null },
  apiCode: null,
  apiMessage: null,
});

describe('error policy: one place maps errors to queue actions', () => {
  it('pauses on quota, with the reset time', () => {
    const until = new Date('2026-05-01T00:00:00Z');
    expect(decide(new QuotaPausedError(until, 'paused'), 1)).toEqual({ action: 'pause', until });
    const rl = new RateLimitedError({
      ...init(429),
      rateLimit: { limit: 10, remaining: 0, resetAt: until, serverDate: null },
    });
    expect(decide(rl, 1)).toEqual({ action: 'pause', until });
  });

  it('stops the run on budget, 402 and 401', () => {
    expect(decide(new BudgetExhaustedError('cap'), 1)).toMatchObject({
      action: 'stop',
      reason: 'budget_exhausted',
    });
    expect(decide(new PaymentRequiredError(init(402)), 1)).toMatchObject({
      action: 'stop',
      reason: 'payment_required',
    });
    expect(decide(new UnauthorizedError(init(401)), 1)).toMatchObject({
      action: 'stop',
      reason: 'unauthorized',
    });
  });

  it('retries transient errors a bounded number of times, then fails', () => {
    const err = new FragsyncError('NETWORK', 'reset', { transient: true });
    expect(decide(err, 1).action).toBe('retry');
    expect(decide(err, MAX_JOB_ATTEMPTS).action).toBe('fail');
  });

  it('never retries terminal errors', () => {
    expect(decide(new FragsyncError('API_CLIENT_ERROR', '400'), 1)).toMatchObject({
      action: 'fail',
      code: 'API_CLIENT_ERROR',
    });
    expect(decide(new ResponseInvalidError('/v1/x', 'bad', {}), 1).action).toBe('fail');
    expect(decide(new Error('boom'), 1)).toMatchObject({ action: 'fail', code: 'INTERNAL' });
  });
});
