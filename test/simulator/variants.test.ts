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
});
