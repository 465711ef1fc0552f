/**
 * One day of a live catalogue: a few new releases, a few withdrawals (404 afterwards and gone
 * from every list), score moves, new reviews on the top of some review lists, reshuffled
 * charts and one new dated chart. Deterministic per (seed, catalogue version).
 */
import { buildCharts } from './charts.ts';
import { addFragrance, type GenContext } from './generate.ts';
import type { CatalogueData, FragranceRec } from './model.ts';
import { int, isoDate, mix, mulberry32, round } from './prng.ts';

/** What a day of churn changes: the catalogue's data, and reviews through its cache. */
export interface Churnable {
  readonly data: CatalogueData;
  readonly version: number;
  addReviews(f: FragranceRec, count: number, date: string): void;
}

export function applyChurn(cat: Churnable, ctx: GenContext, day: number): FragranceRec[] {
  const data = cat.data;
  const rng = mulberry32(mix(data.seed, cat.version, 31337));
  const liveCount = (): number => data.fragrances.reduce((n, f) => n + (f.removed ? 0 : 1), 0);
  const size = liveCount();
  const pickLive = (): FragranceRec | undefined => {
    for (let tries = 0; tries < 100; tries++) {
      const f = data.fragrances[Math.floor(rng() * data.fragrances.length)];
      if (f && !f.removed) return f;
    }
    return undefined;
  };

  const newcomers: FragranceRec[] = [];
  const releases = Math.max(2, Math.round(size * 0.002));
  // New releases have no reviews yet beyond today's; their review anchor is the new day.
  for (let i = 0; i < releases; i++) {
    const f = addFragrance(data, ctx, rng, day);
    f.year = new Date(day * 86_400_000).getUTCFullYear();
    f.baseReviews = Math.min(f.baseReviews, 5);
    newcomers.push(f);
  }

  const removals = Math.max(1, Math.round(size * 0.001));
  for (let i = 0; i < removals && liveCount() > 1; i++) {
    const f = pickLive();
    if (f && !newcomers.includes(f)) f.removed = true;
  }

  const moves = Math.max(3, Math.round(size * 0.01));
  for (let i = 0; i < moves; i++) {
    const f = pickLive();
    if (f) f.score = round(Math.min(5, Math.max(1, f.score + (rng() - 0.5) * 0.4)), 2);
  }

  const reviewed = Math.max(3, Math.round(size * 0.02));
  for (let i = 0; i < reviewed; i++) {
    const f = pickLive();
    if (f) cat.addReviews(f, int(rng, 1, 5), isoDate(day));
  }

  data.charts = buildCharts(data, cat.version, day);
  return newcomers;
}
