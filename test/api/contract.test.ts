import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { ENDPOINTS } from '../../src/domain/endpoints.ts';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { callRecorder } from './helpers.ts';

/** Every endpoint, through the real client, against the simulator over HTTP, compared to its ground truth. */
let sim: Simulator;
let truth: GroundTruth;
let client: FragranceClient;
const rec = callRecorder();

beforeAll(async () => {
  sim = await startSimulator({ fragrances: 60, seed: 7 });
  truth = sim.groundTruth();
  client = new FragranceClient({ baseUrl: sim.url, apiKey: 'sim-key', onCall: rec.onCall });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('fragrances', () => {
  it('uses two-segment slug ids by default', () => {
    expect(truth.fragrances.every((f) => f.id.split('/').length === 2)).toBe(true);
  });

  it('lists every fragrance across pages', async () => {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const res = await client.listFragrances({ page, limit: 25 });
      expect(res.data.pagination).toEqual({ page, limit: 25, total: truth.fragrances.length });
      ids.push(...res.data.data.map((f) => f.id));
      if (page * 25 >= res.data.pagination.total) break;
    }
    expect(ids.sort()).toEqual(truth.fragrances.map((f) => f.id).sort());
  });

  it('gets a profile, its reviews, similar list and wearing stats', async () => {
    const f = truth.fragrances[3]!;
    expect((await client.getFragrance(f.id)).data).toEqual(f);
    const reviews = await client.getReviews(f.id, { page: 1, limit: 50 });
    expect(reviews.data.fragranceId).toBe(f.id);
    expect(reviews.data.pagination.total).toBe(truth.reviews[f.id]!.length);
    expect(reviews.data.reviews).toEqual(truth.reviews[f.id]!.slice(0, 50));
    expect((await client.getSimilar(f.id, { limit: 50 })).data).toEqual({
      id: f.id,
      similar: truth.similar[f.id],
    });
    expect((await client.getWearingStats(f.id)).data).toEqual(truth.wearing[f.id]);
  });

  it('compares two fragrances and digests reviews as opaque objects', async () => {
    const [a, b] = truth.fragrances;
    const cmp = await client.compare(a!.id, b!.id);
    expect(typeof cmp.data).toBe('object');
    expect(Object.keys(cmp.data).length).toBeGreaterThan(0);
    const digest = await client.getReviewDigest(a!.id);
    expect(digest.data.fragranceId).toBe(a!.id);
  });

  it('batches ids, silently omitting unknown ones', async () => {
    const ids = truth.fragrances.slice(0, 50).map((f) => f.id);
    const res = await client.batch([...ids.slice(0, 49), 'no-such/fragrance']);
    expect(res.data.fragrances.map((f) => f.id).sort()).toEqual(ids.slice(0, 49).sort());
    expect(res.data.fragrances[0]).toEqual({
      id: res.data.fragrances[0]!.id,
      name: expect.any(String),
      brand: expect.any(String),
    });
  });

  it('enriches within the given limits', async () => {
    const f = truth.fragrances[5]!;
    const res = await client.enrich({ id: f.id, similarLimit: 3, reviewLimit: 2 });
    expect(res.data).toMatchObject({
      id: f.id,
      name: f.name,
      brand: f.brand,
      notes: f.notes,
      accords: f.accords,
    });
    expect(res.data.similar).toEqual(truth.similar[f.id]!.slice(0, 3));
    expect(res.data.reviews).toEqual(truth.reviews[f.id]!.slice(0, 2));
  });
});

describe('catalogues', () => {
  it('brands, their catalogues and perfumers', async () => {
    const brand = truth.brands[0]!;
    expect((await client.getBrand(brand.slug)).data).toEqual(brand);
    const cat = await client.getBrandFragrances(brand.slug, { page: 1, limit: 50 });
    expect(cat.data.brand).toBe(brand.slug);
    expect(cat.data.data).toEqual(truth.brandCatalogues[brand.slug]!.slice(0, 50));
    const perfumer = truth.perfumers[0]!;
    expect((await client.getPerfumer(perfumer.slug)).data).toEqual(perfumer);
  });

  it('notes, accords and charts', async () => {
    const notes = await client.listNotes({ page: 1, limit: 50 });
    expect(notes.data.pagination.total).toBe(truth.notes.length);
    expect(notes.data.data[0]).toEqual({
      slug: notes.data.data[0]!.slug,
      name: expect.any(String),
      family: expect.any(String),
    });
    const note = truth.notes[2]!;
    expect((await client.getNote(note.slug)).data).toEqual(note);
    const accords = await client.listAccords({ limit: 50 });
    expect(accords.data.data).toEqual(truth.accords.slice(0, 50));
    const charts = await client.listCharts();
    expect(charts.data.charts.map((c) => c.slug).sort()).toEqual(truth.charts.map((c) => c.slug).sort());
    const chart = truth.charts[0]!;
    expect((await client.getChart(chart.slug)).data).toEqual(chart);
  });

  it('search and trending', async () => {
    const f = truth.fragrances[0]!;
    const word = f.name.split(' ')[0]!;
    const res = await client.search({ q: word, type: 'fragrance', limit: 25 });
    expect(res.data.results.length).toBeGreaterThan(0);
    expect(res.data.results.every((r) => r.type === 'fragrance')).toBe(true);
    const all = await client.search({ q: word });
    expect(all.data.results.length).toBeGreaterThan(0);
    const trending = await client.trending();
    expect(Array.isArray(trending.data.queries)).toBe(true);
  });
});

describe('ledger', () => {
  it('reports every call with the price table, matching what the service counted', async () => {
    const ledger = sim.ledger();
    expect(rec.calls).toHaveLength(ledger.calls);
    expect(rec.calls.reduce((s, c) => s + c.costCents, 0)).toBe(ledger.cents);
    for (const call of rec.calls) {
      expect(call.status).toBe(200);
      expect(ledger.byEndpoint[call.endpoint]).toBeDefined();
      expect(
        Object.values(ENDPOINTS).some((e) => e.template === call.endpoint && e.method === call.method),
      ).toBe(true);
      expect(call.quotaRemaining).toEqual(expect.any(Number));
    }
  });

  it('carries the rate-limit headers of each response', async () => {
    const before = sim.clock();
    const res = await client.trending();
    expect(res.rateLimit.limit).toBe(before.limit);
    expect(res.rateLimit.remaining).toBe(before.remaining - 1);
    expect(res.rateLimit.resetAt?.getTime()).toBe(before.resetEpochSeconds * 1000);
    expect(res.rateLimit.serverDate).toBeInstanceOf(Date);
  });
});
