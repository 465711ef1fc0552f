/**
 * Cross-entity search and the trending feed. Relevance: exact name, then prefix, then a word
 * starting with the query, then a substring; accents and case are ignored. A linear scan is
 * fine here: search is a rare, 1-cent call, not part of any mirroring path.
 */
import type { Catalogue } from './catalogue.ts';
import { TRENDING_QUERIES } from './data/words.ts';
import type { FragranceRec } from './model.ts';
import { fold, mix, mulberry32, shuffle } from './prng.ts';

export const SEARCH_TYPES = ['fragrance', 'note', 'brand', 'perfumer', 'collection'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export type SearchResult =
  | { type: 'fragrance'; id: string; name: string; brand: string }
  | { type: 'note' | 'brand' | 'perfumer'; slug: string; name: string }
  | { type: 'collection'; slug: string; title: string };

function relevance(n: string, q: string): number {
  if (n === q) return 0;
  if (n.startsWith(q)) return 1;
  const at = n.indexOf(q);
  if (at < 0) return -1;
  return /[\s\-'’]/.test(n[at - 1] ?? '') ? 2 : 3;
}

export function search(
  cat: Catalogue,
  query: string,
  type: SearchType | undefined,
  limit: number,
): SearchResult[] {
  const q = fold(query.trim());
  const hits: { r: number; t: number; name: string; item: SearchResult }[] = [];
  // Items are built only for hits: a scan over 120k names must not allocate per name.
  const add = (t: SearchType, name: string, folded: string, item: () => SearchResult): void => {
    const r = relevance(folded, q);
    if (r >= 0) hits.push({ r, t: SEARCH_TYPES.indexOf(t), name, item: item() });
  };
  const want = (t: SearchType): boolean => type === undefined || type === t;
  if (want('fragrance')) {
    const folded = cat.foldedNames();
    cat
      .fragranceList()
      .forEach((f, i) =>
        add('fragrance', f.name, folded[i] as string, () => ({ type: 'fragrance', ...cat.summary(f) })),
      );
  }
  if (want('note'))
    for (const n of cat.data.notes)
      add('note', n.name, fold(n.name), () => ({ type: 'note', slug: n.slug, name: n.name }));
  if (want('brand'))
    for (const b of cat.data.brands)
      add('brand', b.name, fold(b.name), () => ({ type: 'brand', slug: b.slug, name: b.name }));
  if (want('perfumer')) {
    for (const p of cat.data.perfumers)
      add('perfumer', p.name, fold(p.name), () => ({ type: 'perfumer', slug: p.slug, name: p.name }));
  }
  if (want('collection')) {
    for (const c of cat.data.charts)
      add('collection', c.title, fold(c.title), () => ({ type: 'collection', slug: c.slug, title: c.title }));
  }
  hits.sort((a, b) => a.r - b.r || a.t - b.t || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, limit).map((h) => h.item);
}

export function trending(cat: Catalogue): {
  queries: string[];
  fragrances: { id: string; name: string; brand: string }[];
  notes: { slug: string; name: string }[];
} {
  const rng = mulberry32(mix(cat.data.seed, cat.version, 555));
  // The fragrances trending today are the top of the trending chart (popularity, churn.ts).
  const chart = cat.data.charts.find((c) => c.slug === 'trending-now');
  const picks = (chart?.members ?? [])
    .map((i) => cat.data.fragrances[i])
    .filter((f) => f !== undefined && !f.removed)
    .slice(0, 10) as FragranceRec[];
  const notes = shuffle(rng, [...cat.data.notes]).slice(0, 8);
  return {
    queries: shuffle(rng, [...TRENDING_QUERIES]).slice(0, 8),
    fragrances: picks.map((f) => cat.summary(f)),
    notes: notes.map((n) => ({ slug: n.slug, name: n.name })),
  };
}
