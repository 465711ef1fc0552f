import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { call, idPath } from './http.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function listIds(s: Simulator, path: string): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const r = await call(s, `${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=50`);
    out.push(...r.json.data.map((x: { id?: string; slug?: string }) => x.id ?? x.slug));
    if (page * 50 >= r.json.pagination.total) return out;
  }
}

describe('variants', () => {
  it("idStyle 'opaque': opaque ids, still found by their two-segment slug in batch and enrich", async () => {
    sim = await startSimulator({ fragrances: 40, variant: { idStyle: 'opaque' } });
    const truth = sim.groundTruth();
    const f = truth.fragrances[0]!;
    expect(truth.fragrances.every((x) => /^f_[0-9a-z]{6}$/.test(x.id))).toBe(true);
    expect((await call(sim, `/v1/fragrances/${f.id}`)).json).toEqual(f);
    // Batch and enrich take slug-style ids: the fragrance's `brand/name` slug finds it too.
    const slugged = truth.fragrances.filter((x) => /^[a-z ]+$/i.test(x.name)).slice(0, 5);
    const slugs = slugged.map((x) => `${x.brandSlug}/${x.name.toLowerCase().replace(/ /g, '-')}`);
    const batch = await call(sim, '/v1/fragrances/batch', { body: { ids: [f.id, ...slugs] } });
    expect(batch.json.fragrances[0]).toEqual({ id: f.id, name: f.name, brand: f.brand });
    expect(batch.json.fragrances.length).toBeGreaterThan(1);
    const enriched = await call(sim, '/v1/fragrances/enrich', { body: { id: slugs[0] } });
    expect(enriched.status).toBe(200);
    expect(enriched.json.id).toBe(slugged[0]!.id);
    expect((await call(sim, `/v1/fragrances/${f.id}/reviews`)).json.fragranceId).toBe(f.id);
  });

  it("errorBody 'text': non-429 errors are plain text; 429 stays a JSON envelope", async () => {
    sim = await startSimulator({ fragrances: 20, dailyQuota: 1, variant: { errorBody: 'text' } });
    const nf = await call(sim, '/v1/brands/nope');
    expect(nf.status).toBe(404);
    expect(nf.json).toBeUndefined();
    expect(nf.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(nf.text).toMatch(/^NOT_FOUND: /);
    expect((await call(sim, '/v1/accords', { key: 'x' })).text).toMatch(/^UNAUTHORIZED: /);
    const limited = await call(sim, '/v1/accords');
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('extraFields: every object gains unknown fields; known fields are unchanged', async () => {
    sim = await startSimulator({ fragrances: 20, variant: { extraFields: true } });
    const truth = sim.groundTruth();
    const f = truth.fragrances[1]!;
    const r = (await call(sim, `/v1/fragrances/${idPath(f.id)}`)).json;
    expect(r.x_sim_source).toBe('simulator');
    expect(r.notes.x_sim_source).toBe('simulator');
    expect(r.accords[0].x_sim_source).toBe('simulator');
    const strip = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(strip)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .filter(([k]) => !k.startsWith('x_sim_'))
                .map(([k, x]) => [k, strip(x)]),
            )
          : v;
    expect(strip(r)).toEqual(f);
    const list = (await call(sim, '/v1/accords')).json;
    expect(list.pagination.x_sim_source).toBe('simulator');
  });

  it('bad400Code and billFailedCalls=false: failed calls are free and use no quota', async () => {
    sim = await startSimulator({
      fragrances: 20,
      dailyQuota: 10,
      variant: { bad400Code: 'VALIDATION_ERROR', billFailedCalls: false },
    });
    const bad = await call(sim, '/v1/notes?limit=99');
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
    expect((await call(sim, '/v1/search?q=a')).json.error.code).toBe('INVALID_QUERY');
    expect((await call(sim, '/v1/brands/nope')).status).toBe(404);
    sim.setFaults({ errorRate: 1 });
    expect((await call(sim, '/v1/accords')).status).toBe(500);
    sim.setFaults({ errorRate: 0, resetRate: 1 });
    await expect(call(sim, '/v1/accords')).rejects.toThrow();
    sim.setFaults({ resetRate: 0 });
    const ok = await call(sim, '/v1/accords');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('9');
    const ledger = sim.ledger();
    expect(ledger.calls).toBe(6);
    expect(ledger.cents).toBe(1);
  });

  it.each(['id', 'reverse', 'shuffled'] as const)(
    "listOrder '%s' orders lists; the ground truth follows it",
    async (order) => {
      sim = await startSimulator({ fragrances: 120, seed: 4, variant: { listOrder: order } });
      const truth = sim.groundTruth();
      const ids = await listIds(sim, '/v1/fragrances');
      expect(ids).toEqual(truth.fragrances.map((f) => f.id));
      const sorted = [...ids].sort();
      if (order === 'id') expect(ids).toEqual(sorted);
      if (order === 'reverse') expect(ids).toEqual([...sorted].reverse());
      if (order === 'shuffled') {
        expect(ids).not.toEqual(sorted);
        expect([...ids].sort()).toEqual(sorted);
        expect(await listIds(sim, '/v1/fragrances')).toEqual(ids);
      }
      const notes = await listIds(sim, '/v1/notes');
      expect(notes).toEqual(truth.notes.map((n) => n.slug));
      const accords = await listIds(sim, '/v1/accords');
      expect(accords).toEqual(truth.accords.map((a) => a.slug));
      expect(new Set(accords).size).toBe(90);
      const brand = truth.brands.find((b) => truth.brandCatalogues[b.slug]!.length > 2)!;
      expect(await listIds(sim, `/v1/brands/${brand.slug}/fragrances`)).toEqual(
        truth.brandCatalogues[brand.slug]!.map((x) => x.id),
      );
    },
  );

  it('pageCap: pages no larger than the cap whatever is asked, and pagination.limit says so', async () => {
    sim = await startSimulator({ fragrances: 40, variant: { pageCap: 7 } });
    const truth = sim.groundTruth();
    for (const path of ['/v1/fragrances', '/v1/notes', '/v1/accords']) {
      const r = (await call(sim, `${path}?page=2&limit=50`)).json;
      expect(r.data).toHaveLength(7);
      expect(r.pagination).toMatchObject({ page: 2, limit: 7 });
    }
    const f = truth.fragrances.find((x) => truth.reviews[x.id]!.length > 14)!;
    const reviews = (await call(sim, `/v1/fragrances/${idPath(f.id)}/reviews?page=2&limit=20`)).json;
    expect(reviews.reviews).toEqual(truth.reviews[f.id]!.slice(7, 14));
    expect(reviews.pagination).toEqual({ page: 2, limit: 7, total: truth.reviews[f.id]!.length });
    // A smaller ask is served as asked.
    expect((await call(sim, '/v1/accords?limit=3')).json.pagination.limit).toBe(3);
  });

  it('edgeValues: legal values at the edges of the spec, in the responses and in the ground truth', async () => {
    sim = await startSimulator({ fragrances: 120, seed: 3, variant: { edgeValues: true } });
    const truth = sim.groundTruth();
    // Scores on another scale where the spec states no range: charts and top lists.
    const chart = truth.charts.find((c) => c.entries.length > 4)!;
    expect(chart.entries.every((e) => e.score > 5)).toBe(true);
    expect(truth.brands.flatMap((b) => b.topFragrances).every((t) => t.score > 5)).toBe(true);
    // Tied ranks: a rank held by two entries, in API order, with the same score.
    const [a, b] = [chart.entries[0]!, chart.entries[1]!];
    expect([b.rank, b.score]).toEqual([a.rank, a.score]);
    expect((await call(sim, `/v1/charts/${chart.slug}`)).json).toEqual(chart);
    // Empty strings where none is forbidden.
    const unknown = truth.fragrances.filter((f) => f.perfumerSlug === '');
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.every((f) => f.perfumer === '')).toBe(true);
    expect(
      Object.values(truth.reviews)
        .flat()
        .some((r) => r.text === ''),
    ).toBe(true);
    // Every perfumer is still named by some profile (the sync finds each as before).
    const named = new Set(truth.fragrances.map((f) => f.perfumerSlug));
    expect(truth.perfumers.filter((p) => !named.has(p.slug))).toEqual([]);
    // Repeated entries: an id twice in a similar list, a label twice in a mood list.
    const repeats = (keys: string[]) => new Set(keys).size < keys.length;
    const similar = Object.entries(truth.similar).find(([, l]) => repeats(l.map((e) => e.id)))!;
    expect(similar).toBeDefined();
    expect((await call(sim, `/v1/fragrances/${idPath(similar[0])}/similar?limit=50`)).json.similar).toEqual(
      similar[1],
    );
    expect(Object.values(truth.wearing).some((w) => repeats(w.moods.map((m) => m.label)))).toBe(true);
    // Listings name some entries twice in a row (the total counts them); the truth's sets do not.
    const ids = await listIds(sim, '/v1/fragrances');
    expect(ids.length).toBeGreaterThan(truth.fragrances.length);
    expect(new Set(ids)).toEqual(new Set(truth.fragrances.map((f) => f.id)));
    // Search results of a type the spec does not list, and one with no type.
    const results = (await call(sim, '/v1/search?q=eau&limit=10')).json.results;
    expect(results).toContainEqual(expect.objectContaining({ type: 'podcast' }));
    expect(results.some((r: { type?: string }) => r.type === undefined)).toBe(true);
    expect(results.length).toBeLessThanOrEqual(10);
  });

  it("edgeValues: an old review keeps its text (a '' one stays '') when new reviews arrive above it", async () => {
    sim = await startSimulator({ fragrances: 60, seed: 11, variant: { edgeValues: true } });
    const before = sim.groundTruth().reviews;
    const [id, old] = Object.entries(before).find(
      ([, rs]) => rs.some((r) => r.text === '') && rs.length > 10,
    )!;
    sim.addReviews(id, 3);
    const read = await call(sim, `/v1/fragrances/${idPath(id)}/reviews?page=1&limit=50`);
    expect(read.json.pagination.total).toBe(old.length + 3);
    // Newest first: the three new ones on top, then every old review exactly as it was.
    expect(read.json.reviews.slice(3)).toEqual(old.slice(0, 47));
    expect(sim.groundTruth().reviews[id]!.slice(3)).toEqual(old);
  });
});
