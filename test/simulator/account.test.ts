import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { call, idPath } from './http.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const nextUtcMidnightSeconds = (ms: number): number => (Math.floor(ms / 86_400_000) + 1) * 86_400;

describe('authentication', () => {
  it('401 without or with a wrong key: never billed, no quota used, headers present', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 100 });
    for (const key of [null, 'wrong']) {
      const r = await call(sim, '/v1/accords', { key });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('100');
    }
    const ledger = sim.ledger();
    expect(ledger.calls).toBe(2);
    expect(ledger.cents).toBe(0);
    expect(ledger.byEndpoint['/v1/accords']!.byStatus).toEqual({ '401': 2 });
  });
});

describe('quota and balance', () => {
  it('all keys share one quota pool; 429 carries the message, reset and headers', async () => {
    sim = await startSimulator({ fragrances: 20, keys: ['k1', 'k2'], dailyQuota: 3 });
    const r1 = await call(sim, '/v1/charts', { key: 'k1' });
    const r2 = await call(sim, '/v1/charts', { key: 'k2' });
    expect([r1.headers.get('x-ratelimit-remaining'), r2.headers.get('x-ratelimit-remaining')]).toEqual([
      '2',
      '1',
    ]);
    expect(r2.headers.get('x-ratelimit-limit')).toBe('3');
    expect((await call(sim, '/v1/charts', { key: 'k1' })).headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await call(sim, '/v1/charts', { key: 'k2' });
    expect(limited.status).toBe(429);
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBe(nextUtcMidnightSeconds(Date.now()));
    expect(limited.json).toEqual({
      error: {
        code: 'RATE_LIMIT_EXCEEDED',
        message: `Daily rate limit exceeded. Resets at ${new Date(reset * 1000).toISOString()}.`,
      },
    });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(sim.ledger().cents).toBe(3);
  });

  it('concurrent calls never overspend the quota, even with latency', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 10 });
    sim.setFaults({ latencyMs: 30 });
    const statuses = await Promise.all(
      Array.from({ length: 25 }, () => call(sim!, '/v1/charts').then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(sim.ledger().cents).toBe(10);
  });

  it('a correct Date header of the service clock on every response', async () => {
    sim = await startSimulator({ fragrances: 20 });
    // Between the call's start (to the second: the header has no finer) and its end, however
    // long a loaded machine makes it.
    const sentAt = Math.floor(Date.now() / 1000) * 1000;
    const r = await call(sim, '/v1/nowhere');
    const answeredAt = Date.now();
    expect(r.status).toBe(404);
    const date = Date.parse(r.headers.get('date')!);
    expect(date).toBeGreaterThanOrEqual(sentAt);
    expect(date).toBeLessThanOrEqual(answeredAt);
    expect(r.headers.get('x-ratelimit-reset')).toBe(String(nextUtcMidnightSeconds(Date.now())));
    const outside = await call(sim, '/');
    expect(outside.status).toBe(404);
    expect(outside.headers.get('x-ratelimit-limit')).toBe('1000000');
    expect(sim.ledger().calls).toBe(1);
  });

  it('402 when the balance cannot pay the call; not billed; top-up resumes', async () => {
    sim = await startSimulator({ fragrances: 20, balanceCents: 28 });
    const id = sim.groundTruth().fragrances[0]!.id;
    expect((await call(sim, '/v1/fragrances/batch', { body: { ids: [id] } })).status).toBe(200);
    expect((await call(sim, `/v1/fragrances/${idPath(id)}/similar`)).status).toBe(200);
    const poor = await call(sim, `/v1/fragrances/${idPath(id)}/similar`);
    expect(poor.status).toBe(402);
    expect(poor.headers.get('x-ratelimit-remaining')).toBe(String(1_000_000 - 2));
    expect((await call(sim, `/v1/fragrances/${idPath(id)}`)).status).toBe(200);
    expect(sim.clock().balanceCents).toBe(0);
    expect((await call(sim, `/v1/fragrances/${idPath(id)}`)).status).toBe(402);
    sim.topUp(5);
    expect((await call(sim, `/v1/fragrances/${idPath(id)}/similar`)).status).toBe(200);
    expect(sim.ledger().cents).toBe(25 + 2 + 1 + 2);
  });

  it('advanceDay moves the service clock a day on (Date header too) and resets the quota', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 5 });
    sim.setRemaining(0);
    expect((await call(sim, '/v1/accords')).status).toBe(429);
    const before = sim.now().getTime();
    const day = sim.clock().serviceDate;
    sim.advanceDay({ churn: false, days: 2 });
    expect(sim.now().getTime() - before).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect(sim.now().getTime() - before).toBeLessThan(3 * 86_400_000);
    expect(Date.parse(sim.clock().serviceDate) - Date.parse(day)).toBe(2 * 86_400_000);
    const r = await call(sim, '/v1/accords');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('4');
    // The service is now a clock two days ahead of this machine's: its Date header says so
    // (to the second), and it tells its next midnight on that clock, less than a day after it.
    const serviceNow = Date.parse(r.headers.get('date') as string);
    expect(serviceNow - Date.now()).toBeGreaterThan(2 * 86_400_000 - 2000);
    const reset = Number(r.headers.get('x-ratelimit-reset')) * 1000;
    expect(reset - serviceNow).toBeGreaterThan(0);
    expect(reset - serviceNow).toBeLessThanOrEqual(86_400_000 + 1000);
  });
});

describe('compressed clock', () => {
  it('a service day of a few real seconds: the quota resets by itself at service midnight', async () => {
    // Two calls and their checks must fall within the first day: 2 s was a timing bet on a
    // loaded machine (12 processes a core); 6 s holds them, and the reset is awaited anyway.
    const DAY_S = 6;
    sim = await startSimulator({ fragrances: 20, dailyQuota: 2, daySeconds: DAY_S });
    const first = await call(sim, '/v1/accords');
    expect(first.headers.get('date')).toMatch(/^Thu, 01 Jan 2026 /);
    sim.setRemaining(0);
    const limited = await call(sim, '/v1/accords');
    expect(limited.status).toBe(429);
    const resetMs = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
    expect(resetMs - Date.now()).toBeGreaterThan(0);
    expect(resetMs - Date.now()).toBeLessThanOrEqual(DAY_S * 1000 + 1000);
    expect(limited.json.error.message).toBe(
      `Daily rate limit exceeded. Resets at ${new Date(resetMs).toISOString()}.`,
    );
    await new Promise((r) => setTimeout(r, resetMs - Date.now() + 50));
    const after = await call(sim, '/v1/accords');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(after.headers.get('date')).toMatch(/^Fri, 02 Jan 2026 /);
    expect(sim.clock().serviceDate).toBe('2026-01-02');
  });
});

describe('control endpoints', () => {
  it('drive the same operations over HTTP, without a key and without billing', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 10 });
    const post = (path: string, body: unknown) => call(sim!, path, { key: null, body });
    expect((await post('/_sim/remaining', { remaining: 0 })).json.remaining).toBe(0);
    expect((await call(sim, '/v1/accords')).status).toBe(429);
    const clock = await post('/_sim/advance-day', { churn: false });
    expect(clock.json.remaining).toBe(10);
    expect((await post('/_sim/top-up', { cents: 100 })).json.balanceCents).toBe(1e9 + 100);
    // The owner raises the allowance mid-day: the 10 already granted today stay, 15 more now.
    await post('/_sim/remaining', { remaining: 0 });
    const raised = await post('/_sim/limit', { limit: 25 });
    expect(raised.json).toMatchObject({ limit: 25, remaining: 15 });
    const after = await call(sim, '/v1/accords');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-limit')).toBe('25');
    expect(after.headers.get('x-ratelimit-remaining')).toBe('14');
    expect((await post('/_sim/limit', { limit: 5 })).json).toMatchObject({ limit: 5, remaining: 0 });
    expect((await post('/_sim/limit', { limit: -1 })).status).toBe(400);
    await post('/_sim/limit', { limit: 10 });
    await post('/_sim/advance-day', { churn: false });
    expect((await post('/_sim/faults', { errorRate: 1 })).json.faults.errorRate).toBe(1);
    expect((await call(sim, '/v1/accords')).status).toBe(500);
    await post('/_sim/faults', { errorRate: 0 });
    expect((await post('/_sim/faults', { errorRate: 2 })).status).toBe(400);
    const ledger = await call(sim, '/_sim/ledger', { key: null });
    expect(ledger.json.calls).toBe(3);
    const truth = await call(sim, '/_sim/truth', { key: null });
    expect(truth.json.fragrances).toHaveLength(20);
    const id = truth.json.fragrances[0].id;
    const total = (await call(sim, `/v1/fragrances/${idPath(id)}/reviews`)).json.pagination.total;
    expect((await post('/_sim/reviews', { fragranceId: id, count: 3 })).status).toBe(200);
    expect((await call(sim, `/v1/fragrances/${idPath(id)}/reviews`)).json.pagination.total).toBe(total + 3);
    expect((await call(sim, '/_sim/clock', { key: null })).json.serviceDate).toBe(sim.clock().serviceDate);
    expect((await post('/_sim/reviews', { fragranceId: 'nope', count: 1 })).status).toBe(404);
  });
});
