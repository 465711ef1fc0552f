import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { call, idPath } from './http.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Raw node:http GET, so a truncated body can be observed byte by byte. */
function rawGet(
  url: string,
): Promise<{ status: number; declared: number; received: number; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: 'Bearer sim-key' } }, (res) => {
      let received = 0;
      const declared = Number(res.headers['content-length']);
      res.on('data', (c: Buffer) => (received += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, declared, received }));
      res.on('error', (e) => resolve({ status: res.statusCode ?? 0, declared, received, error: e.message }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, declared, received, error: 'aborted' }));
    });
    req.on('error', (e) => resolve({ status: 0, declared: 0, received: 0, error: e.message }));
    req.end();
  });
}

describe('faults', () => {
  it('errorRate 1: every /v1 call is a billed 500 (default variant)', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 50 });
    sim.setFaults({ errorRate: 1 });
    const r = await call(sim, '/v1/accords');
    expect(r.status).toBe(500);
    expect(r.json.error.code).toBe('INTERNAL_ERROR');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('49');
    expect(sim.ledger().byEndpoint['/v1/accords']).toEqual({ calls: 1, cents: 1, byStatus: { '500': 1 } });
    // Control endpoints are not subject to faults.
    expect((await call(sim, '/_sim/clock', { key: null })).status).toBe(200);
  });

  it('resetRate 1: the connection is destroyed without a response; ledger status 0', async () => {
    sim = await startSimulator({ fragrances: 20 });
    sim.setFaults({ resetRate: 1 });
    await expect(call(sim, '/v1/charts')).rejects.toThrow();
    const entry = sim.ledger().byEndpoint['/v1/charts']!;
    expect(entry.byStatus).toEqual({ '0': 1 });
    expect(entry.cents).toBe(1);
    sim.setFaults({ resetRate: 0 });
    expect((await call(sim, '/v1/charts')).status).toBe(200);
  });

  it('truncateRate 1: the headers promise the full length, the body stops half-way; billed', async () => {
    sim = await startSimulator({ fragrances: 20 });
    sim.setFaults({ truncateRate: 1 });
    const r = await rawGet(`${sim.url}/v1/notes?limit=50`);
    expect(r.status).toBe(200);
    expect(r.received).toBeLessThan(r.declared);
    expect(r.error).toBeDefined();
    expect(sim.ledger().byEndpoint['/v1/notes']).toEqual({ calls: 1, cents: 1, byStatus: { '200': 1 } });
    await expect(call(sim, '/v1/notes')).rejects.toThrow();
  });

  it('latencyMs delays each response; partial rates hit some calls only', async () => {
    sim = await startSimulator({ fragrances: 20 });
    sim.setFaults({ latencyMs: 150 });
    const t0 = Date.now();
    expect((await call(sim, '/v1/accords')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    sim.setFaults({ latencyMs: 0, errorRate: 0.5 });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => call(sim!, '/v1/accords').then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 500).length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(10);
  });

  it('the latencyMs option delays every answer from the start', async () => {
    sim = await startSimulator({ fragrances: 20, latencyMs: 150 });
    const t0 = Date.now();
    expect((await call(sim, '/v1/accords')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});

describe('ledger', () => {
  it('counts every /v1 request by template and status, and only billed cents', async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 4 });
    const id = sim.groundTruth().fragrances[0]!.id;
    await call(sim, `/v1/fragrances/${idPath(id)}/similar`); // 200, 2 cents
    await call(sim, '/v1/fragrances/nope/nope/similar'); // 404, billed 2 cents
    await call(sim, `/v1/fragrances/${idPath(id)}/similar`, { key: 'bad' }); // 401, not billed
    await call(sim, '/v1/search?q=a'); // 400, billed 1 cent
    await call(sim, '/v1/accords'); // 200, last unit of quota
    await call(sim, '/v1/accords'); // 429, not billed
    const ledger = sim.ledger();
    expect(ledger.calls).toBe(6);
    expect(ledger.cents).toBe(2 + 2 + 1 + 1);
    expect(ledger.byEndpoint['/v1/fragrances/{id}/similar']).toEqual({
      calls: 3,
      cents: 4,
      byStatus: { '200': 1, '404': 1, '401': 1 },
    });
    expect(ledger.byEndpoint['/v1/search']!.byStatus).toEqual({ '400': 1 });
    expect(ledger.byEndpoint['/v1/accords']!.byStatus).toEqual({ '200': 1, '429': 1 });
  });
});
