import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/domain/endpoints.ts';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { call, idPath } from './http.ts';

let sim: Simulator;
let truth: GroundTruth;

beforeAll(async () => {
  sim = await startSimulator({ fragrances: 120, seed: 5 });
  truth = sim.groundTruth();
});
afterAll(() => sim.close());

/** Percent-encodes every byte, so the router must decode each segment to find the id. */
const encodeAll = (s: string): string =>
  [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

describe('fragrance endpoints', () => {
  it('pages through the whole list with exact pagination objects', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await call(sim, `/v1/fragrances?page=${page}&limit=50`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(['data', 'pagination']);
      expect(r.json.pagination).toEqual({ page, limit: 50, total: 120 });
      for (const item of r.json.data) expect(Object.keys(item).sort()).toEqual(['brand', 'id', 'name']);
      seen.push(...r.json.data.map((f: { id: string }) => f.id));
    }
    expect(seen).toEqual(truth.fragrances.map((f) => f.id));
    const defaults = await call(sim, '/v1/fragrances');
    expect(defaults.json.pagination).toEqual({ page: 1, limit: 20, total: 120 });
  });

  it('serves profile, reviews, similar, wearing stats of a two-segment id', async () => {
    const f = truth.fragrances[7]!;
    expect(f.id.split('/')).toHaveLength(2);
    expect((await call(sim, `/v1/fragrances/${idPath(f.id)}`)).json).toEqual(f);
    const reviews = await call(sim, `/v1/fragrances/${idPath(f.id)}/reviews?page=1&limit=5`);
    expect(reviews.json).toEqual({
      fragranceId: f.id,
      reviews: truth.reviews[f.id]!.slice(0, 5),
      pagination: { page: 1, limit: 5, total: truth.reviews[f.id]!.length },
    });
    const similar = await call(sim, `/v1/fragrances/${idPath(f.id)}/similar`);
    expect(similar.json).toEqual({ id: f.id, similar: truth.similar[f.id]!.slice(0, 12) });
    const wearing = await call(sim, `/v1/fragrances/${idPath(f.id)}/wearing-stats`);
    expect(wearing.json).toEqual(truth.wearing[f.id]);
    const digest = await call(sim, `/v1/fragrances/${idPath(f.id)}/review-digest`);
    expect(digest.status).toBe(200);
    expect(digest.json.reviewCount).toBe(truth.reviews[f.id]!.length);
  });

  it('decodes each path segment, and accepts an encoded slash inside one segment', async () => {
    const f = truth.fragrances[11]!;
    const [brand, local] = f.id.split('/') as [string, string];
    const fully = await call(sim, `/v1/fragrances/${encodeAll(brand)}/${encodeAll(local)}/reviews`);
    expect(fully.status).toBe(200);
    expect(fully.json.fragranceId).toBe(f.id);
    expect((await call(sim, `/v1/fragrances/${encodeURIComponent(f.id)}`)).json.id).toBe(f.id);
    expect((await call(sim, `/v1/fragrances/${brand}`)).status).toBe(404);
    expect((await call(sim, `/v1/fragrances/${brand}/%E0%A4%A`)).status).toBe(400);
  });

  it('keeps reviews newest first and similar lists by descending score', () => {
    for (const f of truth.fragrances) {
      const dates = truth.reviews[f.id]!.map((r) => r.date);
      expect([...dates].sort().reverse()).toEqual(dates);
      const scores = truth.similar[f.id]!.map((s) => s.similarityScore);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(
        truth.similar[f.id]!.every((s) => s.id !== f.id && s.similarityScore <= 1 && s.similarityScore > 0),
      ).toBe(true);
      const w = truth.wearing[f.id]!;
      const sum = w.seasons.spring + w.seasons.summer + w.seasons.fall + w.seasons.winter;
      expect(Math.abs(sum - 1)).toBeLessThan(0.01);
      expect([...w.moods].sort((a, b) => b.score - a.score)).toEqual(w.moods);
    }
  });

  it('batch returns matched ids only, enrich caps its lists, compare needs two ids', async () => {
    const ids = truth.fragrances.slice(0, 3).map((f) => f.id);
    const batch = await call(sim, '/v1/fragrances/batch', { body: { ids: [...ids, 'nope/nope'] } });
    expect(batch.json).toEqual({
      fragrances: truth.fragrances.slice(0, 3).map(({ id, name, brand }) => ({ id, name, brand })),
    });
    const f = truth.fragrances[2]!;
    const enrich = await call(sim, '/v1/fragrances/enrich', {
      body: { id: f.id, similarLimit: 3, reviewLimit: 20 },
    });
    expect(enrich.json).toEqual({
      id: f.id,
      name: f.name,
      brand: f.brand,
      notes: f.notes,
      accords: f.accords,
      reviews: truth.reviews[f.id]!.slice(0, 20),
      similar: truth.similar[f.id]!.slice(0, 3),
    });
    const cmp = await call(
      sim,
      `/v1/fragrances/compare?a=${encodeURIComponent(ids[0]!)}&b=${encodeURIComponent(ids[1]!)}`,
    );
    expect(cmp.status).toBe(200);
    expect(cmp.json.a.id).toBe(ids[0]);
  });

  it('filters the list with q and pages it with a cursor', async () => {
    const first = await call(sim, '/v1/fragrances?q=e&limit=5');
    expect(first.status).toBe(200);
    const all: string[] = first.json.data.map((f: { id: string }) => f.id);
    let cursor: string | null = first.json.nextCursor;
    while (cursor) {
      const next = await call(sim, `/v1/fragrances?q=e&limit=5&cursor=${cursor}`);
      all.push(...next.json.data.map((f: { id: string }) => f.id));
      cursor = next.json.nextCursor;
    }
    const expected = truth.fragrances.filter(
      (f) => /e/i.test(f.name.normalize('NFKD')) || /e/i.test(f.brand.normalize('NFKD')),
    );
    expect(all).toEqual(expected.map((f) => f.id));
    expect(first.json.pagination.total).toBe(expected.length);
  });
});

describe('other resources', () => {
  it('brands, catalogues, perfumers, notes, accords, charts match the ground truth', async () => {
    const brand = truth.brands.find((b) => truth.brandCatalogues[b.slug]!.length > 3)!;
    expect((await call(sim, `/v1/brands/${brand.slug}`)).json).toEqual(brand);
    const page = await call(sim, `/v1/brands/${brand.slug}/fragrances?page=2&limit=2`);
    expect(page.json).toEqual({
      brand: brand.slug,
      data: truth.brandCatalogues[brand.slug]!.slice(2, 4),
      pagination: { page: 2, limit: 2, total: truth.brandCatalogues[brand.slug]!.length },
    });
    const perfumer = truth.perfumers[1]!;
    expect((await call(sim, `/v1/perfumers/${perfumer.slug}`)).json).toEqual(perfumer);
    const note = truth.notes[4]!;
    expect((await call(sim, `/v1/notes/${note.slug}`)).json).toEqual(note);
    const notes = await call(sim, '/v1/notes?page=1&limit=50');
    expect(notes.json.data).toEqual(
      truth.notes.slice(0, 50).map(({ slug, name, family }) => ({ slug, name, family })),
    );
    const accords = await call(sim, '/v1/accords?page=2&limit=50');
    expect(accords.json).toEqual({
      data: truth.accords.slice(50, 100),
      pagination: { page: 2, limit: 50, total: 90 },
    });
    const charts = await call(sim, '/v1/charts');
    expect(charts.json).toEqual({ charts: truth.charts.map(({ slug, title }) => ({ slug, title })) });
    expect((await call(sim, `/v1/charts/${truth.charts[1]!.slug}`)).json).toEqual(truth.charts[1]);
  });

  it('search ranks by relevance across types; trending has its three lists', async () => {
    const note = truth.notes[0]!;
    const r = await call(sim, `/v1/search?q=${encodeURIComponent(note.name)}&type=note&limit=25`);
    expect(r.json.results[0]).toEqual({ type: 'note', slug: note.slug, name: note.name });
    const mixed = await call(sim, '/v1/search?q=ro');
    expect(mixed.json.results.length).toBeGreaterThan(0);
    expect(mixed.json.results.length).toBeLessThanOrEqual(20);
    const f = truth.fragrances[0]!;
    const byName = await call(sim, `/v1/search?q=${encodeURIComponent(f.name)}&type=fragrance`);
    expect(byName.json.results).toContainEqual({ type: 'fragrance', id: f.id, name: f.name, brand: f.brand });
    const trending = await call(sim, '/v1/trending');
    expect(Object.keys(trending.json).sort()).toEqual(['fragrances', 'notes', 'queries']);
  });
});

describe('parameter bounds', () => {
  const f = () => idPath(truth.fragrances[0]!.id);
  it.each([
    ['/v1/fragrances?limit=51', 400],
    ['/v1/fragrances?limit=0', 400],
    ['/v1/fragrances?page=0', 400],
    ['/v1/fragrances?page=abc', 400],
    ['/v1/fragrances?q=' + 'x'.repeat(101), 400],
    ['/v1/fragrances?priceRange=CHEAP', 400],
    ['/v1/search?q=ro&limit=26', 400],
    ['/v1/search?q=ro&type=shop', 400],
    ['/v1/notes?limit=51', 400],
    ['/v1/accords?limit=51', 400],
    ['/v1/fragrances/compare?a=x', 400],
    ['/v1/brands/nope', 404],
    ['/v1/perfumers/nope', 404],
    ['/v1/notes/nope', 404],
    ['/v1/charts/nope', 404],
    ['/v1/fragrances/nope/nope/similar', 404],
  ])('%s → %i', async (path, status) => {
    const r = await call(sim, path);
    expect(r.status).toBe(status);
    expect(r.json.error.code).toBe(status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST');
  });

  it('reviews page 1..10000, limit 1..50; similar limit 1..50', async () => {
    expect((await call(sim, `/v1/fragrances/${f()}/reviews?page=10000&limit=50`)).status).toBe(200);
    expect((await call(sim, `/v1/fragrances/${f()}/reviews?page=10001`)).status).toBe(400);
    expect((await call(sim, `/v1/fragrances/${f()}/reviews?limit=51`)).status).toBe(400);
    expect((await call(sim, `/v1/fragrances/${f()}/similar?limit=50`)).status).toBe(200);
    expect((await call(sim, `/v1/fragrances/${f()}/similar?limit=51`)).status).toBe(400);
  });

  it('search q under 2 characters is INVALID_QUERY', async () => {
    for (const q of ['', 'a', '%20']) {
      const r = await call(sim, `/v1/search?q=${q}`);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('INVALID_QUERY');
    }
    expect((await call(sim, '/v1/search')).json.error.code).toBe('INVALID_QUERY');
  });

  it('batch: 51 ids → 422, 0 ids → 400; enrich limits 1..20; compare a==b → 400', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => truth.fragrances[i]!.id);
    expect((await call(sim, '/v1/fragrances/batch', { body: { ids } })).status).toBe(422);
    expect(
      (await call(sim, '/v1/fragrances/batch', { body: { ids: ids.slice(0, 50) } })).json.fragrances,
    ).toHaveLength(50);
    expect((await call(sim, '/v1/fragrances/batch', { body: { ids: [] } })).status).toBe(400);
    expect((await call(sim, '/v1/fragrances/batch', { body: '{not json' })).status).toBe(400);
    const id = truth.fragrances[0]!.id;
    expect((await call(sim, '/v1/fragrances/enrich', { body: { id, reviewLimit: 21 } })).status).toBe(400);
    expect((await call(sim, '/v1/fragrances/enrich', { body: { id, similarLimit: 0 } })).status).toBe(400);
    expect((await call(sim, '/v1/fragrances/enrich', { body: { id: 'nope/nope' } })).status).toBe(404);
    const same = await call(
      sim,
      `/v1/fragrances/compare?a=${encodeURIComponent(id)}&b=${encodeURIComponent(id)}`,
    );
    expect(same.status).toBe(400);
  });

  it('bills each endpoint its price from the price table', async () => {
    const before = sim.ledger();
    await call(sim, `/v1/fragrances/${f()}/similar`);
    await call(sim, '/v1/fragrances/batch', { body: { ids: [truth.fragrances[0]!.id] } });
    const after = sim.ledger();
    expect(after.cents - before.cents).toBe(ENDPOINTS.getSimilar.costCents + ENDPOINTS.batch.costCents);
    expect(after.byEndpoint['/v1/fragrances/batch']!.byStatus['200']).toBeGreaterThan(0);
  });
});
