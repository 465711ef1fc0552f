/**
 * Accord-based similarity: cosine of the accord-strength vectors, rounded to 3 decimals,
 * descending, ties by catalogue order. Big catalogues only compare a fixed-size window of the
 * fragrances sharing one of the anchor's two strongest accords, which keeps a request to a
 * few thousand dot products (a sample, but a stable one: same catalogue, same list).
 */
import type { CatalogueData, FragranceRec } from './model.ts';
import type { SimilarEntry } from './types.ts';

const FULL_SCAN_MAX = 5000;
/** Candidates taken from each of the anchor's two accord buckets on big catalogues. */
const WINDOW = 600;
const SLOTS = 8;
/** Sort keys pack (1000 - score×1000) above the index, so a plain numeric sort orders both. */
const IDX_SPACE = 2 ** 24;

/**
 * The accord vectors of all fragrances in flat typed arrays: walking thousands of candidates
 * through their objects costs a cache miss per field, this does not. Rebuilt per catalogue
 * version (churn adds and removes fragrances). It holds everything a list is computed from
 * (the fragrances then, their accords, the accord buckets), so a matrix kept from an earlier
 * day computes that day's lists (the 'fixed' similar lists: similar-lists.ts).
 */
export class AccordMatrix {
  /** How many fragrances (live or not) the catalogue had. */
  readonly count: number;
  /** The accord buckets then (big catalogues only: a full scan does not read them). */
  readonly buckets: readonly (readonly number[])[];
  readonly accord: Int16Array;
  readonly strength: Float32Array;
  readonly norm: Float64Array;
  /** seen[idx] === visit marks a candidate already scored in the current request. */
  readonly seen: Uint32Array;
  visit = 0;

  constructor(data: CatalogueData) {
    const n = data.fragrances.length;
    this.count = n;
    this.buckets = n <= FULL_SCAN_MAX ? [] : data.accordBuckets.map((b) => b.slice());
    this.accord = new Int16Array(n * SLOTS).fill(-1);
    this.strength = new Float32Array(n * SLOTS);
    this.norm = new Float64Array(n);
    this.seen = new Uint32Array(n);
    for (const f of data.fragrances) {
      // A removed fragrance keeps norm 0 and no accords: it can never be similar.
      if (f.removed) continue;
      this.norm[f.idx] = f.norm;
      for (let i = 0; i < Math.min(SLOTS, f.accords.length); i++) {
        this.accord[f.idx * SLOTS + i] = f.accords[i] as number;
        this.strength[f.idx * SLOTS + i] = f.strengths[i] as number;
      }
    }
  }
}

export function computeSimilar(
  data: CatalogueData,
  m: AccordMatrix,
  anchor: FragranceRec,
  brandName: (f: FragranceRec) => string,
): SimilarEntry[] {
  const weights = new Float64Array(data.accords.length);
  anchor.accords.forEach((a, i) => (weights[a] = anchor.strengths[i] as number));
  const visit = ++m.visit;
  m.seen[anchor.idx] = visit;
  const { accord, strength, norm } = m;
  const fullScan = m.count <= FULL_SCAN_MAX;
  const keys = new Float64Array(fullScan ? m.count : 2 * WINDOW);
  let count = 0;
  const consider = (idx: number): void => {
    let dot = 0;
    for (let s = idx * SLOTS, end = s + SLOTS; s < end; s++) {
      const a = accord[s] as number;
      if (a < 0) break;
      dot += (weights[a] as number) * (strength[s] as number);
    }
    if (dot <= 0) return;
    const milli = Math.min(1000, Math.round((dot / (anchor.norm * (norm[idx] as number))) * 1000));
    keys[count++] = (1000 - milli) * IDX_SPACE + idx;
  };
  if (fullScan) {
    for (let i = 0; i < m.count; i++) if (i !== anchor.idx) consider(i);
  } else {
    for (const a of anchor.accords.slice(0, 2)) {
      const bucket = m.buckets[a] ?? [];
      // A window of the bucket around the anchor (buckets are in index order, so a binary
      // search finds it): bounded work per request, whatever the catalogue size.
      let lo = 0;
      let hi = bucket.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((bucket[mid] as number) < anchor.idx) lo = mid + 1;
        else hi = mid;
      }
      const span = Math.min(bucket.length, WINDOW);
      const start = lo - (span >> 1) + bucket.length;
      for (let k = 0; k < span; k++) {
        const idx = bucket[(start + k) % bucket.length] as number;
        if (m.seen[idx] !== visit) {
          m.seen[idx] = visit;
          consider(idx);
        }
      }
    }
  }
  const n = Math.min(50, anchor.similarTarget, count);
  const sorted = smallest(keys, count, n);
  const out: SimilarEntry[] = [];
  for (let i = 0; i < n; i++) {
    const key = sorted[i] as number;
    const f = data.fragrances[key % IDX_SPACE] as FragranceRec;
    const score = (1000 - Math.floor(key / IDX_SPACE)) / 1000;
    out.push({ id: f.id, name: f.name, brand: brandName(f), similarityScore: score });
  }
  return out;
}

/**
 * The n smallest of keys[0, count), ascending: what sorting them all and taking the first n
 * gives (keys are distinct: each holds its fragrance's index), for a fraction of the cost. A
 * typed-array sort of the 1,200 candidates took about 100 us of a request's 0.2 ms; keeping
 * the best n (at most 50) in order as the candidates pass touches few of them.
 */
function smallest(keys: Float64Array, count: number, n: number): Float64Array {
  const best = new Float64Array(n);
  let size = 0;
  for (let i = 0; i < count; i++) {
    const key = keys[i] as number;
    if (size === n && key >= (best[n - 1] as number)) continue;
    // Insertion from the end: the new key moves up past the larger ones (the last falls off when full).
    let j = size < n ? size++ : n - 1;
    while (j > 0 && (best[j - 1] as number) > key) {
      best[j] = best[j - 1] as number;
      j--;
    }
    best[j] = key;
  }
  return best;
}
