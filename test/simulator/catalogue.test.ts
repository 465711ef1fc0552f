import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/simulator/catalogue.ts';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { DEFAULT_VARIANT } from '../../src/simulator/model.ts';

describe('a default (300) catalogue', () => {
  let sim: Simulator;
  let truth: GroundTruth;
  beforeAll(async () => {
    sim = await startSimulator();
    truth = sim.groundTruth();
  });
  afterAll(() => sim.close());

  it('has every kind of record, with the floors for small catalogues', () => {
    expect(truth.fragrances).toHaveLength(300);
    expect(truth.brands.length).toBeGreaterThanOrEqual(5);
    expect(truth.perfumers.length).toBeGreaterThanOrEqual(3);
    expect(truth.notes.length).toBeGreaterThanOrEqual(30);
    expect(truth.accords).toHaveLength(90);
    expect(truth.charts.length).toBeGreaterThanOrEqual(3);
    expect(truth.serviceDate).toBe(new Date().toISOString().slice(0, 10));
  });

  it('keeps references whole: brands, perfumers, notes, accords, charts, similar', () => {
    const brands = new Set(truth.brands.map((b) => b.slug));
    const perfumers = new Set(truth.perfumers.map((p) => p.slug));
    const notes = new Set(truth.notes.map((n) => n.name));
    const accords = new Set(truth.accords.map((a) => a.name));
    const ids = new Set(truth.fragrances.map((f) => f.id));
    for (const f of truth.fragrances) {
      expect(brands.has(f.brandSlug)).toBe(true);
      expect(perfumers.has(f.perfumerSlug)).toBe(true);
      expect([...f.notes.top, ...f.notes.middle, ...f.notes.base].every((n) => notes.has(n))).toBe(true);
      expect(f.accords.every((a) => accords.has(a.name) && a.strength > 0 && a.strength <= 1)).toBe(true);
      expect(f.score).toBeGreaterThanOrEqual(1);
      expect(f.score).toBeLessThanOrEqual(5);
      expect(truth.similar[f.id]!.every((s) => ids.has(s.id))).toBe(true);
    }
    expect(truth.charts.flatMap((c) => c.entries).every((e) => ids.has(e.id))).toBe(true);
    const catalogued = Object.values(truth.brandCatalogues)
      .flat()
      .map((x) => x.id);
    expect(catalogued.sort()).toEqual([...ids].sort());
  });

  it('looks like real data: unicode, rating-only and duplicate reviews, long and empty lists', () => {
    const names = truth.fragrances.map((f) => f.name).join(' ');
    expect(names).toMatch(/[À-ÿ]/);
    expect(names).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    expect(names).toMatch(/\p{Extended_Pictographic}/u);
    const counts = Object.values(truth.reviews).map((r) => r.length);
    expect(counts.some((n) => n === 0)).toBe(true);
    expect(counts.some((n) => n > 500)).toBe(true);
    const all = Object.values(truth.reviews).flat();
    expect(all.some((r) => r.text === null)).toBe(true);
    expect(all.every((r) => r.rating >= 0.5 && r.rating <= 5 && /^\d{4}-\d{2}-\d{2}$/.test(r.date))).toBe(
      true,
    );
    const hasDuplicatePair = Object.values(truth.reviews).some((list) =>
      list.some((r, i) => i > 0 && r.text === null && JSON.stringify(r) === JSON.stringify(list[i - 1])),
    );
    expect(hasDuplicatePair).toBe(true);
    expect(Object.values(truth.brandCatalogues).some((c) => c.length > 50)).toBe(true);
    const similarSizes = Object.values(truth.similar).map((s) => s.length);
    expect(similarSizes.some((n) => n < 12)).toBe(true);
    expect(similarSizes.some((n) => n >= 45)).toBe(true);
    expect(truth.brands.every((b) => b.topFragrances.length <= 10)).toBe(true);
  });

  it('is deterministic per seed', async () => {
    const twin = await startSimulator({ seed: 1 });
    const other = await startSimulator({ seed: 2 });
    try {
      const t = twin.groundTruth();
      expect(t.fragrances).toEqual(truth.fragrances);
      expect(t.reviews).toEqual(truth.reviews);
      expect(other.groundTruth().fragrances).not.toEqual(truth.fragrances);
    } finally {
      await twin.close();
      await other.close();
    }
  });
});

describe('a 120k catalogue', () => {
  // How fast it generates is bench:scale's figure (the service's start-up), not a timed test.
  it('generates with real-database proportions', () => {
    const cat = new Catalogue({ fragrances: 120_000, seed: 1, variant: DEFAULT_VARIANT, anchorDay: 20_000 });
    expect(cat.data.fragrances).toHaveLength(120_000);
    expect(cat.data.brands).toHaveLength(7000);
    expect(cat.data.perfumers).toHaveLength(2800);
    expect(cat.data.notes).toHaveLength(2400);
    expect(cat.data.accords).toHaveLength(90);
    const f = cat.fragranceList()[60_000]!;
    expect(cat.similar(f).length).toBeGreaterThan(0);
    expect(cat.reviews(f, 0, 50).length).toBe(Math.min(50, cat.reviewTotal(f)));
  }, 120_000);
});
