import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import {
  BudgetExhaustedError,
  QuotaPausedError,
  RequestInvalidError,
  ResponseInvalidError,
} from '../../src/errors.ts';
import { freePort } from '../helpers/redis-server.ts';
import {
  SECRET_KEY,
  ScriptedGovernor,
  callRecorder,
  captureLogger,
  expectNoSecret,
  startRawServer,
} from './helpers.ts';

/**
 * Client behaviour no spec-following service provokes (malformed 200s, a refusing governor,
 * nobody listening), over real HTTP against a small in-test server.
 */
const PROFILE = {
  id: 'guerlain/shalimar',
  name: 'Shalimar',
  brand: 'Guerlain',
  brandSlug: 'guerlain',
  perfumer: 'Jacques Guerlain',
  perfumerSlug: 'jacques-guerlain',
  year: 1925,
  score: 4.3,
  notes: { top: ['bergamot'], middle: ['iris'], base: ['vanilla'] },
  accords: [{ name: 'amber', strength: 0.9 }],
};
const HEADERS = {
  'content-type': 'application/json',
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '42',
  'x-ratelimit-reset': '1893456000',
};

let server: Awaited<ReturnType<typeof startRawServer>>;
let garbledLeft = 0;

beforeAll(async () => {
  server = await startRawServer((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/v1/fragrances/bad-type/')) {
      res
        .writeHead(200, HEADERS)
        .end(JSON.stringify({ ...PROFILE, id: 'bad-type/x', notes: { ...PROFILE.notes, top: ['a', 7] } }));
    } else if (url.startsWith('/v1/fragrances/missing/')) {
      const { perfumerSlug: _omit, ...rest } = PROFILE;
      res.writeHead(200, HEADERS).end(JSON.stringify({ ...rest, echo: `Bearer ${SECRET_KEY}` }));
    } else if (url.startsWith('/v1/fragrances/garbled')) {
      if (garbledLeft-- > 0) res.writeHead(200, HEADERS).end('{"id": "guerl');
      else res.writeHead(200, HEADERS).end(JSON.stringify(PROFILE));
    } else if (url.startsWith('/v1/fragrances/echo')) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`invalid key ${req.headers.authorization}`);
    } else {
      res.writeHead(200, HEADERS).end(JSON.stringify(PROFILE));
    }
  });
});
afterAll(() => server.close());

function client(extra: Partial<ConstructorParameters<typeof FragranceClient>[0]> = {}) {
  return new FragranceClient({
    baseUrl: server.url,
    apiKey: SECRET_KEY,
    retryBaseMs: 1,
    retryMaxMs: 5,
    ...extra,
  });
}

describe('invalid responses', () => {
  it('names endpoint, field path and id, and keeps the raw body', async () => {
    const c = client();
    const err = await c.getFragrance('bad-type/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseInvalidError);
    const e = err as ResponseInvalidError;
    expect(e.message).toContain('/v1/fragrances/{id}');
    expect(e.message).toContain('notes.top[1]');
    expect(e.message).toContain('id=bad-type/x');
    expect((e.raw as { name: string }).name).toBe('Shalimar');
    expect(e.transient).toBe(false);
    await c.close();
  });

  it('reports a missing field and redacts the key from the raw body', async () => {
    const { logger, lines } = captureLogger();
    const c = client({ logger });
    const err = (await c.getFragrance('missing/x').catch((e: unknown) => e)) as ResponseInvalidError;
    expect(err).toBeInstanceOf(ResponseInvalidError);
    expect(err.message).toContain('perfumerSlug');
    expect(JSON.stringify(err.raw)).toContain('[REDACTED]');
    expectNoSecret(SECRET_KEY, err, lines);
    expectNoSecret(SECRET_KEY, JSON.stringify(err.raw));
    await c.close();
  });

  it('retries a 200 whose body is not JSON, recording each attempt', async () => {
    garbledLeft = 2;
    const rec = callRecorder();
    const c = client({ onCall: rec.onCall });
    const res = await c.getFragrance('garbled');
    expect(res.data.name).toBe('Shalimar');
    expect(rec.calls.map((x) => x.status)).toEqual([200, 200, 200]);
    garbledLeft = 100;
    const err = (await c.getFragrance('garbled').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.transient).toBe(true);
    expect(rec.calls).toHaveLength(3 + 5);
    await c.close();
  });

  it('redacts a key the server echoes in an error body', async () => {
    const { logger, lines } = captureLogger();
    const c = client({ logger });
    const err = (await c.getFragrance('echo').catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.rawBody).toContain('[REDACTED]');
    expectNoSecret(SECRET_KEY, err, lines);
    await c.close();
  });
});

describe('governor wiring', () => {
  it('asks again while busy, then sends once and settles with the rate-limit state', async () => {
    const gov = new ScriptedGovernor([{ reason: 'busy' }, { reason: 'busy' }]);
    const c = client({ admission: gov });
    const before = server.requests.length;
    const res = await c.getFragrance('guerlain/shalimar');
    expect(gov.admitCalls).toBe(3);
    expect(server.requests.length - before).toBe(1);
    expect(gov.settled).toHaveLength(1);
    expect(gov.settled[0]?.ticket.endpoint).toBe('getFragrance');
    expect(gov.settled[0]?.outcome.status).toBe(200);
    expect(gov.settled[0]?.outcome.rateLimit.remaining).toBe(42);
    expect(res.rateLimit.resetAt?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    await c.close();
  });

  it('sends nothing when paused or over budget', async () => {
    const until = new Date('2030-01-01T00:00:00Z');
    const gov = new ScriptedGovernor([
      { reason: 'paused', until },
      { reason: 'run_budget' },
      { reason: 'day_budget' },
    ]);
    const rec = callRecorder();
    const c = client({ admission: gov, onCall: rec.onCall });
    const before = server.requests.length;
    const paused = await c.getFragrance('a').catch((e: unknown) => e);
    expect(paused).toBeInstanceOf(QuotaPausedError);
    expect((paused as QuotaPausedError).resetAt).toEqual(until);
    await expect(c.trending()).rejects.toBeInstanceOf(BudgetExhaustedError);
    await expect(c.listCharts()).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(server.requests.length).toBe(before);
    expect(rec.calls).toHaveLength(0);
    expect(gov.settled).toHaveLength(0);
    await c.close();
  });

  it('a busy wait ends when the signal aborts', async () => {
    const gov = new ScriptedGovernor(Array.from({ length: 1000 }, () => ({ reason: 'busy' as const })));
    const c = client({ admission: gov });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop')), 150);
    await expect(c.getFragrance('a', ac.signal)).rejects.toThrow('stop');
    expect(gov.admitted).toHaveLength(0);
    await c.close();
  });

  it('refuses invalid parameters before asking the governor', async () => {
    const gov = new ScriptedGovernor();
    const c = client({ admission: gov });
    await expect(c.search({ q: 'x' })).rejects.toBeInstanceOf(RequestInvalidError);
    await expect(c.getFragrance('a/b/c')).rejects.toBeInstanceOf(RequestInvalidError);
    await expect(c.getReviews('a', { page: 10_001 })).rejects.toBeInstanceOf(RequestInvalidError);
    expect(gov.admitCalls).toBe(0);
    await c.close();
  });

  it('a connection that was never made releases the ticket and writes no ledger row', async () => {
    const port = await freePort(); // nothing listens there
    const gov = new ScriptedGovernor();
    const rec = callRecorder();
    const { logger, lines } = captureLogger();
    const c = new FragranceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: SECRET_KEY,
      admission: gov,
      onCall: rec.onCall,
      logger,
      maxRetries: 2,
      retryBaseMs: 1,
    });
    const err = (await c.getFragrance('x').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('NETWORK');
    expect(err.transient).toBe(true);
    expect(gov.released).toHaveLength(3);
    expect(gov.settled).toHaveLength(0);
    expect(rec.calls).toHaveLength(0);
    expectNoSecret(SECRET_KEY, err, lines);
    await c.close();
  });
});
