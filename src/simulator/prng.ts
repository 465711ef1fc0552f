/**
 * Small deterministic helpers: the catalogue must be identical for the same seed on every
 * machine, so nothing here may touch Math.random or the wall clock.
 */
import { DAY_MS } from '../util/calendar-day.ts';

export type Rng = () => number;

/** mulberry32: fast, 32-bit state, good enough for test data. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes several integers into one seed, so sub-streams (per fragrance, per day) are independent. */
export function mix(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

export function int(rng: Rng, min: number, maxInclusive: number): number {
  return min + Math.floor(rng() * (maxInclusive - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

export function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
  return items;
}

export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** Cumulative Zipf-like weights; `weighted` then draws rank i with probability ∝ 1/(i+1)^s. */
export function zipfTable(size: number, s: number): Float64Array {
  const cum = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) {
    total += 1 / (i + 1) ** s;
    cum[i] = total;
  }
  for (let i = 0; i < size; i++) cum[i] = (cum[i] as number) / total;
  return cum;
}

export function weighted(rng: Rng, cum: Float64Array): number {
  const r = rng();
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cum[mid] as number) < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** URL-safe ASCII slug; names without any latin letters fall back to `fallback`. */
export function slugify(name: string, fallback: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.length > 0 ? s : fallback;
}

/** Lower-case, accent-free form used by search so 'eclat' finds 'Éclat'. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/**
 * Formatted once per day: a review page formats a date per review, and the days a catalogue's
 * reviews span are a few thousand (bounded all the same).
 */
const isoDates = new Map<number, string>();
export function isoDate(epochDay: number): string {
  let text = isoDates.get(epochDay);
  if (text === undefined) {
    text = new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
    if (isoDates.size < 100_000) isoDates.set(epochDay, text);
  }
  return text;
}

export function epochDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}
