/**
 * Accord-based similarity: cosine of the accord-strength vectors, rounded to 3 decimals,
 * descending, ties by catalogue order. Big catalogues only compare fragrances whose two
 * strongest accords include one of the anchor's two strongest, which keeps a request to a
 * few thousand dot products.
 */
import type { CatalogueData, FragranceRec } from './model.ts';
import type { SimilarEntry } from './types.ts';

const FULL_SCAN_MAX = 5000;
/** Sort keys pack (1000 - score×1000) above the index, so a plain numeric sort orders both. */
const IDX_SPACE = 2 ** 24;

export function computeSimilar(
  data: CatalogueData,
  anchor: FragranceRec,
  brandName: (f: FragranceRec) => string,
): SimilarEntry[] {
  const weights = new Float64Array(data.accords.length);
  anchor.accords.forEach((a, i) => (weights[a] = anchor.strengths[i] as number));
  const keys: number[] = [];
  const seen = new Uint8Array(data.fragrances.length);
  seen[anchor.idx] = 1;
  const consider = (idx: number): void => {
    if (seen[idx]) return;
    seen[idx] = 1;
    const f = data.fragrances[idx] as FragranceRec;
    if (f.removed) return;
    let dot = 0;
    for (let i = 0; i < f.accords.length; i++) {
      dot += (weights[f.accords[i] as number] as number) * (f.strengths[i] as number);
    }
    if (dot <= 0) return;
    const milli = Math.min(1000, Math.round((dot / (anchor.norm * f.norm)) * 1000));
    keys.push((1000 - milli) * IDX_SPACE + idx);
  };
  if (data.fragrances.length <= FULL_SCAN_MAX) {
    for (let i = 0; i < data.fragrances.length; i++) consider(i);
  } else {
    for (const a of anchor.accords.slice(0, 2)) for (const idx of data.accordBuckets[a] ?? []) consider(idx);
  }
  const sorted = Float64Array.from(keys).sort();
  const out: SimilarEntry[] = [];
  const n = Math.min(50, anchor.similarTarget, sorted.length);
  for (let i = 0; i < n; i++) {
    const key = sorted[i] as number;
    const f = data.fragrances[key % IDX_SPACE] as FragranceRec;
    const score = (1000 - Math.floor(key / IDX_SPACE)) / 1000;
    out.push({ id: f.id, name: f.name, brand: brandName(f), similarityScore: score });
  }
  return out;
}
