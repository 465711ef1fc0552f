/**
 * The contract tables' rows as the ground truth holds them, in the warehouse's column order
 * (test/helpers/ground-truth.ts reads the same columns from a warehouse). Reviews keep their
 * duplicates: two identical reviews are two rows. A list whose key repeats (an id twice in a
 * similar list, a label twice in a mood list, a tied chart rank) is split by the warehouse's
 * collision rule (docs/data-dictionary.md): the first entry of a key in API order is the
 * contract row, every later one an overflow row.
 */
import { RowDigest, type TableDigest } from '../util/row-digest.ts';
import type { GroundTruth } from './types.ts';

export type TruthRows = Record<string, unknown[][]>;

/** A list's entries as [contract rows, overflow rows], by the first occurrence of each key. */
function byFirstKey<E>(
  list: readonly E[],
  key: (e: E) => unknown,
): [{ e: E; i: number }[], { e: E; i: number }[]] {
  const seen = new Set<unknown>();
  const first: { e: E; i: number }[] = [];
  const later: { e: E; i: number }[] = [];
  list.forEach((e, i) => {
    const k = key(e);
    (seen.has(k) ? later : first).push({ e, i });
    seen.add(k);
  });
  return [first, later];
}

export function truthRows(t: GroundTruth): TruthRows {
  const f = t.fragrances;
  return {
    fragrances: f.map((x) => [
      x.id,
      x.name,
      x.brand,
      x.brandSlug,
      x.perfumer,
      x.perfumerSlug,
      x.year,
      x.score,
    ]),
    fragrance_notes: f.flatMap((x) =>
      (['top', 'middle', 'base'] as const).flatMap((layer) =>
        x.notes[layer].map((n, i) => [x.id, layer, i, n]),
      ),
    ),
    fragrance_accords: f.flatMap((x) => x.accords.map((a, i) => [x.id, i, a.name, a.strength])),
    brands: t.brands.map((b) => [b.slug, b.name, b.country, b.description]),
    brand_fragrances: Object.entries(t.brandCatalogues).flatMap(([slug, list]) =>
      list.map((e) => [slug, e.id]),
    ),
    perfumers: t.perfumers.map((p) => [p.slug, p.name, p.nationality, p.bio]),
    notes: t.notes.map((n) => [n.slug, n.name, n.family, n.description]),
    accords: t.accords.map((a) => [a.slug, a.name]),
    charts: t.charts.map((c) => [c.slug, c.title]),
    chart_entries: t.charts.flatMap((c) =>
      byFirstKey(c.entries, (e) => e.rank)[0].map(({ e }) => [
        c.slug,
        t.serviceDate,
        e.rank,
        e.id,
        e.name,
        e.brand,
        e.score,
      ]),
    ),
    chart_entries_overflow: t.charts.flatMap((c) =>
      byFirstKey(c.entries, (e) => e.rank)[1].map(({ e, i }) => [
        c.slug,
        t.serviceDate,
        i,
        e.rank,
        e.id,
        e.name,
        e.brand,
        e.score,
      ]),
    ),
    reviews: Object.entries(t.reviews).flatMap(([id, rs]) => rs.map((r) => [id, r.date, r.rating, r.text])),
    similar_fragrances: Object.entries(t.similar).flatMap(([id, list]) =>
      byFirstKey(list, (s) => s.id)[0].map(({ e, i }) => [id, e.id, i, e.similarityScore]),
    ),
    similar_fragrances_overflow: Object.entries(t.similar).flatMap(([id, list]) =>
      byFirstKey(list, (s) => s.id)[1].map(({ e, i }) => [id, e.id, i, e.similarityScore]),
    ),
    wearing_stats: Object.entries(t.wearing).map(([id, w]) => [
      id,
      w.seasons.spring,
      w.seasons.summer,
      w.seasons.fall,
      w.seasons.winter,
    ]),
    wearing_moods: Object.entries(t.wearing).flatMap(([id, w]) =>
      byFirstKey(w.moods, (m) => m.label)[0].map(({ e, i }) => [id, e.label, i, e.score]),
    ),
    wearing_occasions: Object.entries(t.wearing).flatMap(([id, w]) =>
      byFirstKey(w.occasions, (m) => m.label)[0].map(({ e, i }) => [id, e.label, i, e.score]),
    ),
    wearing_labels_overflow: Object.entries(t.wearing).flatMap(([id, w]) =>
      (['moods', 'occasions'] as const).flatMap((list) =>
        byFirstKey(w[list], (m) => m.label)[1].map(({ e, i }) => [id, list, e.label, i, e.score]),
      ),
    ),
  };
}

/** Each contract table's row count and order-independent digest (see RowDigest). */
export function truthDigest(t: GroundTruth): Record<string, TableDigest> {
  const out: Record<string, TableDigest> = {};
  for (const [table, rows] of Object.entries(truthRows(t))) {
    const d = new RowDigest();
    for (const row of rows) d.add(row);
    out[table] = { rows: d.rows, digest: d.digest };
  }
  return out;
}
