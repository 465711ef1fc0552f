/**
 * Data derived from a fragrance's own seed: its generated reviews and its wearing stats.
 * Generated lazily so a 120k catalogue does not hold millions of reviews in memory.
 */
import { MOODS, OCCASIONS, REVIEW_PHRASES } from './data/words.ts';
import { Lru } from './lru.ts';
import type { FragranceRec } from './model.ts';
import { int, isoDate, mix, mulberry32, pick, round, shuffle } from './prng.ts';
import type { LabelScore, Review, WearingStats } from './types.ts';

/**
 * The generated (older) reviews, newest first. About a third are rating-only (text null);
 * some rating-only reviews come in identical pairs on the same day: they are two reviews.
 */
export function generateReviews(f: FragranceRec): Review[] {
  const rng = mulberry32(mix(f.seed, 1));
  const out: Review[] = [];
  let day = f.reviewAnchorDay;
  while (out.length < f.baseReviews) {
    if (out.length > 0) day -= rng() < 0.5 ? 0 : int(rng, 1, 20);
    const rating = int(rng, 1, 10) / 2;
    const text = rng() < 0.35 ? null : pick(rng, REVIEW_PHRASES);
    out.push({ rating, text, date: isoDate(day) });
    if (text === null && rng() < 0.08 && out.length < f.baseReviews)
      out.push({ rating, text, date: isoDate(day) });
  }
  // The fourth fragrance always opens with an identical pair, so tests can rely on one.
  const first = out[0];
  if (f.idx === 3 && first && out.length >= 2) {
    out[0] = { rating: first.rating, text: null, date: first.date };
    out[1] = { rating: first.rating, text: null, date: first.date };
  }
  return out;
}

/** Review pages of one fragrance are usually read in a burst: keep recent lists. */
export class ReviewCache {
  private readonly lru = new Lru<number, Review[]>(512);

  get(f: FragranceRec): Review[] {
    return this.lru.get(f.idx, () => generateReviews(f));
  }
}

export function reviewTotal(f: FragranceRec): number {
  return f.added.length + f.baseReviews;
}

/** Reviews [offset, offset+limit) of the newest-first list: added ones first, then generated. */
export function reviewSlice(f: FragranceRec, cache: ReviewCache, offset: number, limit: number): Review[] {
  const out: Review[] = [];
  const end = Math.min(offset + limit, reviewTotal(f));
  let generated: Review[] | undefined;
  for (let i = offset; i < end; i++) {
    if (i < f.added.length) {
      out.push(f.added[i] as Review);
    } else {
      generated ??= f.baseReviews > 0 ? cache.get(f) : [];
      out.push(generated[i - f.added.length] as Review);
    }
  }
  return out;
}

function ranked(rng: () => number, labels: readonly string[], min: number, max: number): LabelScore[] {
  const chosen = shuffle(rng, [...labels]).slice(0, int(rng, min, max));
  return chosen
    .map((label) => ({ label, score: round(0.05 + rng() * 0.9, 2) }))
    .sort((a, b) => b.score - a.score || (a.label < b.label ? -1 : 1));
}

export function wearingStats(f: FragranceRec): WearingStats {
  const rng = mulberry32(mix(f.seed, 2));
  const raw = [rng() + 0.1, rng() + 0.1, rng() + 0.1, rng() + 0.1];
  const total = raw.reduce((a, b) => a + b, 0);
  const [spring, summer, fall, winter] = raw.map((x) => round(x / total, 3)) as [
    number,
    number,
    number,
    number,
  ];
  return {
    fragranceId: f.id,
    seasons: { spring, summer, fall, winter },
    moods: ranked(rng, MOODS, 3, 7),
    occasions: ranked(rng, OCCASIONS, 2, 5),
  };
}
