import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { call, idPath } from './http.ts';

describe('a day passes with churn', () => {
  let sim: Simulator;
  let before: GroundTruth;
  let after: GroundTruth;

  beforeAll(async () => {
    sim = await startSimulator({ fragrances: 200, seed: 9 });
    before = sim.groundTruth();
    sim.advanceDay();
    after = sim.groundTruth();
  });
  afterAll(() => sim.close());

  const ids = (t: GroundTruth) => new Set(t.fragrances.map((f) => f.id));

  it('adds new fragrances to the list and to their brand catalogue', async () => {
    const added = after.fragrances.filter((f) => !ids(before).has(f.id));
    expect(added.length).toBeGreaterThan(0);
    const listed = await call(sim, '/v1/fragrances?limit=50&page=1');
    expect(listed.json.pagination.total).toBe(after.fragrances.length);
    for (const f of added) {
      expect(after.brandCatalogues[f.brandSlug]!.map((x) => x.id)).toContain(f.id);
      expect((await call(sim, `/v1/fragrances/${idPath(f.id)}`)).json).toEqual(f);
    }
  });

  it('removes fragrances everywhere: 404, list, catalogues, similar lists, charts', async () => {
    const removed = before.fragrances.filter((f) => !ids(after).has(f.id));
    expect(removed.length).toBeGreaterThan(0);
    for (const f of removed) {
      expect((await call(sim, `/v1/fragrances/${idPath(f.id)}`)).status).toBe(404);
      expect((await call(sim, `/v1/fragrances/${idPath(f.id)}/reviews`)).status).toBe(404);
      const gone = (id: string) => id !== f.id;
      expect(
        Object.values(after.brandCatalogues)
          .flat()
          .every((x) => gone(x.id)),
      ).toBe(true);
      expect(
        Object.values(after.similar)
          .flat()
          .every((x) => gone(x.id)),
      ).toBe(true);
      expect(after.charts.flatMap((c) => c.entries).every((x) => gone(x.id))).toBe(true);
    }
    const anchor = Object.entries(before.similar).find(
      ([id, list]) => ids(after).has(id) && list.some((s) => s.id === removed[0]!.id),
    );
    expect(anchor).toBeDefined();
    const live = await call(sim, `/v1/fragrances/${idPath(anchor![0])}/similar?limit=50`);
    expect(live.json.similar.map((s: { id: string }) => s.id)).not.toContain(removed[0]!.id);
  });

  it('moves scores, adds reviews dated the new day, adds one chart', () => {
    const old = new Map(before.fragrances.map((f) => [f.id, f]));
    const moved = after.fragrances.filter((f) => old.has(f.id) && old.get(f.id)!.score !== f.score);
    expect(moved.length).toBeGreaterThan(0);
    const grown = after.fragrances.filter(
      (f) => old.has(f.id) && after.reviews[f.id]!.length > before.reviews[f.id]!.length,
    );
    expect(grown.length).toBeGreaterThan(0);
    for (const f of grown) {
      const fresh = after.reviews[f.id]!.length - before.reviews[f.id]!.length;
      expect(after.reviews[f.id]!.slice(fresh)).toEqual(before.reviews[f.id]);
      expect(after.reviews[f.id]![0]!.date).toBe(after.serviceDate);
    }
    expect(after.serviceDate > before.serviceDate).toBe(true);
    const newCharts = after.charts.filter((c) => !before.charts.some((b) => b.slug === c.slug));
    expect(newCharts.map((c) => c.slug)).toEqual([`editors-picks-${after.serviceDate}`]);
    const trending = (t: GroundTruth) =>
      t.charts.find((c) => c.slug === 'trending-now')!.entries.map((e) => e.id);
    expect(trending(after)).not.toEqual(trending(before));
  });

  it('is deterministic: the same seed churns the same way', async () => {
    const twin = await startSimulator({ fragrances: 200, seed: 9 });
    twin.advanceDay();
    const t = twin.groundTruth();
    await twin.close();
    expect(t.fragrances).toEqual(after.fragrances);
    expect(t.charts).toEqual(after.charts);
  });
});

describe('reviews arriving between page requests', () => {
  it('shift the newest-first pages by the number added; pagination.total tells by how much', async () => {
    const sim = await startSimulator({ fragrances: 30, seed: 2 });
    try {
      const truth = sim.groundTruth();
      const f = truth.fragrances.find((x) => truth.reviews[x.id]!.length >= 40)!;
      const path = `/v1/fragrances/${idPath(f.id)}/reviews?limit=20`;
      const page1 = await call(sim, `${path}&page=1`);
      sim.addReviews(f.id, 3);
      const page2 = await call(sim, `${path}&page=2`);
      expect(page2.json.pagination.total - page1.json.pagination.total).toBe(3);
      // The first 3 items of page 2 are the last 3 of page 1: shifted, nothing skipped.
      expect(page2.json.reviews.slice(0, 3)).toEqual(page1.json.reviews.slice(17));
      const fresh = (await call(sim, `${path}&page=1`)).json.reviews.slice(0, 3);
      expect(fresh.every((r: { date: string }) => r.date === sim.clock().serviceDate)).toBe(true);
    } finally {
      await sim.close();
    }
  });
});
