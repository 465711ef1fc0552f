/**
 * One day of a living catalogue, as the change model says (change-model.ts): new releases
 * (some from a brand-new house), discontinued fragrances (404 afterwards and gone from every
 * list), score drift, new reviews on top of page 1, redrawn accords, popularity moves,
 * reshuffled charts and sometimes a new dated chart. Deterministic per (seed, catalogue
 * version, model).
 */
import { share } from './change-model.ts';
import { buildCharts } from './charts.ts';
import { addFragrance, drawAccords, type GenContext } from './generate.ts';
import type { CatalogueData, FragranceRec } from './model.ts';
import { openHouse } from './new-house.ts';
import { int, isoDate, mix, mulberry32, round, type Rng } from './prng.ts';
import type { ChangeModel } from './types.ts';
import { DAY_MS } from '../util/calendar-day.ts';

/** What a day of churn changes: the catalogue's data, and reviews through its cache. */
export interface Churnable {
  readonly data: CatalogueData;
  readonly version: number;
  addReviews(f: FragranceRec, count: number, date: string): void;
}

/** What the day did, by fragrance index (for the catalogue's indexes and for tests). */
export interface DayChanges {
  added: FragranceRec[];
  removed: FragranceRec[];
  accordsChanged: FragranceRec[];
}

export function applyChurn(cat: Churnable, ctx: GenContext, day: number, model: ChangeModel): DayChanges {
  const data = cat.data;
  const rng = mulberry32(mix(data.seed, cat.version, 31337));
  const size = data.fragrances.reduce((n, f) => n + (f.removed ? 0 : 1), 0);
  const old = data.fragrances.length;
  // Only fragrances that existed before today change: a release is new, not drifted.
  const pickOld = (): FragranceRec | undefined => {
    for (let tries = 0; tries < 100; tries++) {
      const f = data.fragrances[Math.floor(rng() * old)];
      if (f && !f.removed) return f;
    }
    return undefined;
  };
  const year = new Date(day * DAY_MS).getUTCFullYear();
  const changes: DayChanges = { added: [], removed: [], accordsChanged: [] };

  const releases = share(size, model.releaseRate);
  for (let i = 0; i < releases; i++) {
    const pin = i < model.newHouses ? openHouse(data, rng, year) : undefined;
    const f = addFragrance(data, ctx, rng, day, pin);
    // A release has no reviews yet beyond today's, and the attention of a launch.
    f.year = year;
    f.baseReviews = Math.min(f.baseReviews, 5);
    f.popularity = round(f.popularity * 3 + 50, 2);
    changes.added.push(f);
  }

  for (let i = share(size, model.removalRate); i > 0 && size - changes.removed.length > 1; i--) {
    const f = pickOld();
    if (f && !f.removed) {
      f.removed = true;
      changes.removed.push(f);
    }
  }

  for (let i = share(size, model.scoreDriftRate); i > 0; i--) {
    const f = pickOld();
    if (f) f.score = round(Math.min(5, Math.max(1, f.score + (rng() - 0.5) * 0.4)), 2);
  }

  for (let i = share(size, model.reviewRate); i > 0; i--) {
    const f = pickOld();
    if (f) cat.addReviews(f, int(rng, 1, 5), isoDate(day));
  }

  for (let i = share(size, model.accordChangeRate); i > 0; i--) {
    const f = pickOld();
    if (f && !changes.accordsChanged.includes(f)) {
      redrawAccords(data, f, rng);
      changes.accordsChanged.push(f);
    }
  }

  for (let i = share(size, model.popularityRate); i > 0; i--) {
    const f = pickOld();
    if (f) f.popularity = round(Math.max(1, f.popularity * Math.exp((rng() - 0.4) * 1.5)), 2);
  }

  data.charts = buildCharts(data, cat.version, day, rng() < model.newChartChance);
  return changes;
}

/** New accords (a reformulation); the accord buckets stay in index order for similar.ts. */
function redrawAccords(data: CatalogueData, f: FragranceRec, rng: Rng): void {
  for (const a of f.accords.slice(0, 2)) {
    const bucket = data.accordBuckets[a];
    const at = bucket ? bucket.indexOf(f.idx) : -1;
    if (bucket && at >= 0) bucket.splice(at, 1);
  }
  const { accords, strengths, norm } = drawAccords(rng, data);
  f.accords = accords;
  f.strengths = strengths;
  f.norm = norm;
  for (const a of accords.slice(0, 2)) {
    const bucket = data.accordBuckets[a];
    if (!bucket || bucket.includes(f.idx)) continue;
    let lo = 0;
    while (lo < bucket.length && (bucket[lo] as number) < f.idx) lo++;
    bucket.splice(lo, 0, f.idx);
  }
}
