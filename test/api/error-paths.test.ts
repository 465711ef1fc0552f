import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { ApiError, PaymentRequiredError, RateLimitedError, UnauthorizedError } from '../../src/api/errors.ts';
import { RequestInvalidError } from '../../src/errors.ts';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { SECRET_KEY, callRecorder, captureLogger, expectNoSecret } from './helpers.ts';

/** The error statuses the spec names, provoked on the simulator and read by the real client. */
let sim: Simulator;
let truth: GroundTruth;
let client: FragranceClient;
const rec = callRecorder();
const log = captureLogger();

beforeAll(async () => {
  sim = await startSimulator({ fragrances: 30, seed: 3, keys: [SECRET_KEY] });
  truth = sim.groundTruth();
  client = new FragranceClient({
    baseUrl: sim.url,
    apiKey: SECRET_KEY,
    onCall: rec.onCall,
    logger: log.logger,
    retryBaseMs: 1,
  });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

async function caught(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expectNoSecret(SECRET_KEY, err, log.lines);
  return err as ApiError;
}

function raw(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${SECRET_KEY}`, ...init.headers },
  });
}

describe('400 INVALID_QUERY', () => {
  it('the client refuses a short q without sending; the service answers 400 INVALID_QUERY', async () => {
    const calls = sim.ledger().calls;
    await expect(client.search({ q: 'a' })).rejects.toBeInstanceOf(RequestInvalidError);
    expect(sim.ledger().calls).toBe(calls);
    const res = await raw('/v1/search?q=a');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'INVALID_QUERY' } });
  });
});

describe('401', () => {
  it('a wrong key is UNAUTHORIZED, terminal, and named nowhere', async () => {
    const wrongKey = 'sk-wrong-0123456789-WRONG';
    const other = new FragranceClient({ baseUrl: sim.url, apiKey: wrongKey, logger: log.logger });
    const err = await caught(other.getFragrance(truth.fragrances[0]!.id));
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.transient).toBe(false);
    expectNoSecret(wrongKey, err, log.lines);
    await other.close();
  });
});

describe('404 NOT_FOUND', () => {
  it('unknown id or slug, with the code from the body and the id in the message', async () => {
    const before = rec.calls.length;
    const err = await caught(client.getFragrance('no-such/fragrance'));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.status).toBe(404);
    expect(err.apiCode).toBe('NOT_FOUND');
    expect(err.transient).toBe(false);
    expect(err.message).toContain('no-such/fragrance');
    expect(err.rawBody).toBeUndefined();
    expect(rec.calls.length - before).toBe(1); // never retried
    for (const p of [
      client.getBrand('nope'),
      client.getNote('nope'),
      client.getChart('nope'),
      client.getPerfumer('nope'),
    ]) {
      expect((await caught(p)).code).toBe('NOT_FOUND');
    }
    for (const p of [
      client.getReviews('x/y'),
      client.getSimilar('x/y'),
      client.getWearingStats('x/y'),
      client.getReviewDigest('x/y'),
    ]) {
      expect((await caught(p)).apiCode).toBe('NOT_FOUND');
    }
  });
});

describe('422', () => {
  it('the client refuses 51 ids; the service answers 422', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => truth.fragrances[i % truth.fragrances.length]!.id);
    const calls = sim.ledger().calls;
    await expect(client.batch(ids)).rejects.toBeInstanceOf(RequestInvalidError);
    expect(sim.ledger().calls).toBe(calls);
    const res = await raw('/v1/fragrances/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ids }),
    });
    expect(res.status).toBe(422);
  });
});

describe('429', () => {
  it('is thrown at once with the reset time and the headers', async () => {
    sim.setRemaining(0);
    const before = rec.calls.length;
    const err = await caught(client.getFragrance(truth.fragrances[0]!.id));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.transient).toBe(true);
    expect(err.apiCode).toBe('RATE_LIMIT_EXCEEDED');
    const resetAt = new Date(sim.clock().resetEpochSeconds * 1000);
    expect((err as RateLimitedError).resetAt).toEqual(resetAt);
    expect(err.rateLimit.remaining).toBe(0);
    expect(err.rateLimit.resetAt).toEqual(resetAt);
    expect(rec.calls.slice(before).map((c) => [c.status, c.quotaRemaining])).toEqual([[429, 0]]);
    sim.setRemaining(1_000);
  });
});

describe('402', () => {
  it('is PAYMENT_REQUIRED, not retried, and goes away after a top-up', async () => {
    const id = truth.fragrances[0]!.id;
    sim.topUp(-sim.clock().balanceCents);
    const before = rec.calls.length;
    const err = await caught(client.getFragrance(id));
    expect(err).toBeInstanceOf(PaymentRequiredError);
    expect(err.code).toBe('PAYMENT_REQUIRED');
    expect(rec.calls.length - before).toBe(1);
    sim.topUp(1_000);
    expect((await client.getFragrance(id)).status).toBe(200);
  });
});
