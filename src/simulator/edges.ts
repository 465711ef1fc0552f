/**
 * The edge reading of the spec (SimulatorVariant.edgeValues): answers a real service may give
 * where the spec leaves room, each one legal.
 * - Scores on another scale where the spec states no range: chart entries and the top lists
 *   of brands, perfumers and notes carry a popularity figure (thousands), not a rating.
 * - Empty strings where none is forbidden: an unknown perfumer ('' name and slug) on some
 *   profiles, review texts '' (not null), empty brand countries, perfumer bios, note
 *   descriptions and chart titles.
 * - Tied chart ranks (1, 2, 2, 4, ...: two entries share a rank and a score).
 * - Repeated entries: similar lists and mood and occasion lists repeat an entry.
 * Views pass through here (catalogue.ts), so the ground truth has them too; what is only a
 * matter of a response (pages smaller than asked, repeated list entries, search result
 * types) is in handlers.ts. Deterministic per record.
 */
import type { FragranceRec, PerfumerRec } from './model.ts';
import { mix } from './prng.ts';
import type * as T from './types.ts';

/** One record in `every` (by a hash of its seed), so the edge cases are spread, not all at once. */
const oneIn = (every: number, ...keys: number[]): boolean => mix(0xed9e, ...keys) % every === 0;

const hash = (s: string): number => mix(...Array.from(s, (ch) => ch.codePointAt(0)!));

/** A popularity figure: another scale than the 0-5 rating (the spec states no range for it). */
const popularity = (score: number, i: number): number => Math.round(score * 2000) + 17 * i;

export class Edges {
  constructor(readonly on: boolean) {}

  /**
   * An unknown perfumer on some profiles; never on a perfumer's first live fragrance, so
   * every perfumer is still named by some profile (and a sync finds it as before).
   */
  profile(
    p: T.FragranceProfile,
    f: FragranceRec,
    perfumer: PerfumerRec,
    isLive: (i: number) => boolean,
  ): T.FragranceProfile {
    if (!this.on || !oneIn(6, f.seed, 1)) return p;
    if (perfumer.fragrances.find(isLive) === f.idx) return p;
    return { ...p, perfumer: '', perfumerSlug: '' };
  }

  /**
   * A review's '' text is chosen by its place counted from the oldest review: new reviews
   * arrive at the top, so its place from the newest moves every day and a text keyed by it
   * would flip between '' and the real text, an edit of old reviews the spec never describes.
   */
  reviews(list: T.Review[], f: FragranceRec, offset: number, total: number): T.Review[] {
    if (!this.on) return list;
    const edged = (i: number) => oneIn(5, f.seed, total - 1 - (offset + i));
    return list.map((r, i) => (r.text !== null && edged(i) ? { ...r, text: '' } : r));
  }

  /** An entry repeated right after itself (same id, same score: the order stays descending). */
  similar(list: T.SimilarEntry[], f: FragranceRec): T.SimilarEntry[] {
    if (!this.on || list.length < 2 || !oneIn(3, f.seed, 2)) return list;
    const at = mix(f.seed, 3) % list.length;
    return [...list.slice(0, at + 1), { ...list[at]! }, ...list.slice(at + 1)];
  }

  wearing(w: T.WearingStats, f: FragranceRec): T.WearingStats {
    if (!this.on || !oneIn(3, f.seed, 4)) return w;
    const repeat = (l: T.LabelScore[]) => (l.length === 0 ? l : [l[0]!, { ...l[0]! }, ...l.slice(1)]);
    return { ...w, moods: repeat(w.moods), occasions: repeat(w.occasions) };
  }

  brand(b: T.Brand, seed: number): T.Brand {
    if (!this.on) return b;
    return {
      ...b,
      country: oneIn(4, seed, 5) ? '' : b.country,
      topFragrances: b.topFragrances.map((t, i) => ({ ...t, score: popularity(t.score, i) })),
    };
  }

  perfumer(p: T.Perfumer, seed: number): T.Perfumer {
    if (!this.on) return p;
    return {
      ...p,
      bio: oneIn(4, seed, 6) ? '' : p.bio,
      topCreations: p.topCreations.map((t, i) => ({ ...t, score: popularity(t.score, i) })),
    };
  }

  note(n: T.Note, seed: number): T.Note {
    if (!this.on) return n;
    return {
      ...n,
      description: oneIn(4, seed, 7) ? '' : n.description,
      topFragrances: n.topFragrances.map((t, i) => ({ ...t, score: popularity(t.score, i) })),
    };
  }

  /** A chart's title, in the chart list and the chart alike: '' for some. */
  chartTitle(slug: string, title: string): string {
    return this.on && oneIn(3, hash(slug), 8) ? '' : title;
  }

  /** Popularity scores, and every fourth place tied with the one above it (rank and score). */
  chart(c: T.Chart): T.Chart {
    if (!this.on) return c;
    const n = c.entries.length;
    const entries = c.entries.map((e, i) => ({ ...e, score: popularity(e.score, n - i) }));
    for (let i = 1; i < n; i++)
      if (i % 4 === 1)
        entries[i] = { ...entries[i]!, rank: entries[i - 1]!.rank, score: entries[i - 1]!.score };
    return { ...c, title: this.chartTitle(c.slug, c.title), entries };
  }

  /** A listing (fragrance list, brand catalogue) that names some entries twice, in a row. */
  listing<E>(list: E[]): E[] {
    if (!this.on) return list;
    return list.flatMap((e, i) => (i % 7 === 3 ? [e, e] : [e]));
  }
}
