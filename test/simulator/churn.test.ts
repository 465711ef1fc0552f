import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_CHANGE_MODEL,
  startSimulator,
  type ChangeModel,
  type GroundTruth,
  type Simulator,
} from '../../src/simulator/index.ts';
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

  it('moves scores, adds reviews dated the new day on top of page 1, reshuffles the charts', () => {
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
    const trending = (t: GroundTruth) =>
      t.charts.find((c) => c.slug === 'trending-now')!.entries.map((e) => e.id);
    expect(trending(after)).not.toEqual(trending(before));
  });

  it('opens a brand-new house: a new brand, perfumer and note, named by a new release', () => {
    const had = <T extends { slug: string }>(list: T[]) => new Set(list.map((x) => x.slug));
    const newBrands = after.brands.filter((b) => !had(before.brands).has(b.slug));
    const newPerfumers = after.perfumers.filter((p) => !had(before.perfumers).has(p.slug));
    const newNotes = after.notes.filter((n) => !had(before.notes).has(n.slug));
    expect([newBrands.length, newPerfumers.length, newNotes.length]).toEqual([1, 1, 1]);
    const release = after.fragrances.find((f) => f.brandSlug === newBrands[0]!.slug)!;
    expect(ids(before).has(release.id)).toBe(false);
    expect(release.perfumerSlug).toBe(newPerfumers[0]!.slug);
    expect(Object.values(release.notes).flat()).toContain(newNotes[0]!.name);
    expect(after.brandCatalogues[newBrands[0]!.slug]!.map((x) => x.id)).toEqual([release.id]);
    expect(newBrands[0]!.topFragrances.map((x) => x.id)).toEqual([release.id]);
  });

  it('redraws some accords, and the similar lists follow', () => {
    const old = new Map(before.fragrances.map((f) => [f.id, f]));
    const redrawn = after.fragrances.filter(
      (f) => old.has(f.id) && JSON.stringify(old.get(f.id)!.accords) !== JSON.stringify(f.accords),
    );
    expect(redrawn.length).toBeGreaterThan(0);
    for (const f of redrawn) expect(after.similar[f.id]).not.toEqual(before.similar[f.id]);
  });

  it('is deterministic: the same seed churns the same way', async () => {
    const twin = await startSimulator({ fragrances: 200, seed: 9 });
    twin.advanceDay();
    const t = twin.groundTruth();
    await twin.close();
    expect(t.fragrances).toEqual(after.fragrances);
    expect(t.charts).toEqual(after.charts);
    expect(t.similar).toEqual(after.similar);
  });
});

describe('the change model', () => {
  const day = async (opts: { fragrances: number; changeModel?: Partial<ChangeModel> }) => {
    const sim = await startSimulator({ seed: 4, ...opts });
    try {
      const before = sim.groundTruth();
      sim.advanceDay();
      return { before, after: sim.groundTruth(), clock: sim.clock() };
    } finally {
      await sim.close();
    }
  };
  const diff = (a: GroundTruth, b: GroundTruth) => {
    const ids = (t: GroundTruth) => new Set(t.fragrances.map((f) => f.id));
    return {
      added: b.fragrances.filter((f) => !ids(a).has(f.id)).length,
      removed: a.fragrances.filter((f) => !ids(b).has(f.id)).length,
      brands: b.brands.length - a.brands.length,
      charts: b.charts.length - a.charts.length,
    };
  };

  it("by default, a day like issue 15's: 1% new (one from a new house), one discontinued", async () => {
    const { before, after, clock } = await day({ fragrances: 1500 });
    const d = diff(before, after);
    expect(d).toMatchObject({ added: 1500 * DEFAULT_CHANGE_MODEL.releaseRate, removed: 1, brands: 1 });
    expect(clock.day).toBe(1);
  });

  it('is configurable: no releases, no new house, three removals, always a new chart', async () => {
    const changeModel = { releaseRate: 0, newHouses: 0, removalRate: 0.01, newChartChance: 1 };
    const { before, after } = await day({ fragrances: 300, changeModel });
    expect(diff(before, after)).toEqual({ added: 0, removed: 3, brands: 0, charts: 1 });
    expect(after.charts.at(-1)!.slug).toBe(`editors-picks-${after.serviceDate}`);
    const quiet = await day({ fragrances: 300, changeModel: { ...changeModel, newChartChance: 0 } });
    expect(diff(quiet.before, quiet.after).charts).toBe(0);
  });

  it('refuses a field out of range or unknown', async () => {
    await expect(startSimulator({ changeModel: { reviewRate: 2 } })).rejects.toThrow(/reviewRate/);
    await expect(
      startSimulator({ changeModel: { typo: 1 } as unknown as Partial<ChangeModel> }),
    ).rejects.toThrow(/typo/);
  });
});

describe('days over the control endpoint', () => {
  it('advances several days, reads and sets the change model, and the truth follows', async () => {
    const sim = await startSimulator({ fragrances: 100, seed: 3 });
    try {
      const post = (path: string, body: unknown) => call(sim, path, { key: null, body });
      const model = await call(sim, '/_sim/change-model', { key: null });
      expect(model.json).toEqual(DEFAULT_CHANGE_MODEL);
      const set = await post('/_sim/change-model', { releaseRate: 0.05, newHouses: 2 });
      expect(set.json).toMatchObject({ releaseRate: 0.05, newHouses: 2, reviewRate: 0.03 });
      expect((await post('/_sim/change-model', { releaseRate: -1 })).status).toBe(400);
      expect((await post('/_sim/change-model', { nope: 1 })).status).toBe(400);
      expect((await post('/_sim/advance-day', { days: 1.5 })).status).toBe(400);
      const before = sim.groundTruth();
      const clock = await post('/_sim/advance-day', { days: 2 });
      expect(clock.json.day).toBe(2);
      const after = (await call(sim, '/_sim/truth', { key: null })).json as GroundTruth;
      expect(after.serviceDate).toBe(clock.json.serviceDate);
      // Two days of 5% releases on ~100 fragrances, two of each day's from new houses.
      expect(after.brands.length - before.brands.length).toBe(4);
      const listed = await call(sim, '/v1/fragrances?limit=50&page=1');
      expect(listed.json.pagination.total).toBe(after.fragrances.length);
      // 5% of ~100 released each day, and at least one discontinued each day.
      const had = new Set(before.fragrances.map((f) => f.id));
      expect(after.fragrances.filter((f) => !had.has(f.id))).toHaveLength(10);
      expect(before.fragrances.length + 10 - after.fragrances.length).toBe(2);
    } finally {
      await sim.close();
    }
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
