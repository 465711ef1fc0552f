import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadItem } from '../../src/domain/items.ts';
import { reviewColumns } from '../../src/domain/items.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { resourceLeaves, section, subsections } from '../helpers/spec.ts';
import { batch, freshWarehouse, profile } from './fixtures.ts';

/**
 * Values outside a range the spec states are stored as sent and flagged (the value_flags
 * view); nothing without a stated range is ever flagged. The ranges are read from the spec's
 * field tables (docs/fragrance-api.md), so a range the spec gains, or a view that flags a
 * range the spec does not state, fails here.
 */

const SEASONS = { spring: 0.25, summer: 0.25, fall: 0.25, winter: 0.25 };
const wearing = (id: string, over: Partial<Record<string, number>>): LoadItem => ({
  kind: 'wearing',
  fragranceId: id,
  seasons: { ...SEASONS, ...over },
  moods: [{ label: 'calm', score: over.mood ?? 0.5 }],
  occasions: [{ label: 'office', score: over.occasion ?? 0.5 }],
});

/** Where each ranged field of the spec is stored, and items that store `v` there for fragrance `id`. */
const PLACES: Record<
  string,
  { table: string; column: string; items: (id: string, v: number) => LoadItem[] }
> = {
  'Fragrance profile (get fragrance) score': {
    table: 'fragrances',
    column: 'score',
    items: (id, v) => [profile(id, { score: v })],
  },
  'Fragrance profile (get fragrance) accords[].strength': {
    table: 'fragrance_accords',
    column: 'strength',
    items: (id, v) => [profile(id, { accords: [{ name: 'woody', strength: v }] })],
  },
  'Review rating': {
    table: 'reviews',
    column: 'rating',
    items: (id, v) => [
      {
        kind: 'reviews',
        fragranceId: id,
        mode: 'replace',
        total: 1,
        ...reviewColumns([{ date: '2024-01-01', rating: v, text: null }]),
      },
    ],
  },
  'Similar-fragrance entry similarityScore': {
    table: 'similar_fragrances',
    column: 'similarity_score',
    items: (id, v) => [{ kind: 'similar', fragranceId: id, ids: ['other'], scores: [v] }],
  },
  ...Object.fromEntries(
    Object.keys(SEASONS).map((season) => [
      `Wearing stats seasons.${season}`,
      {
        table: 'wearing_stats',
        column: season,
        items: (id: string, v: number) => [wearing(id, { [season]: v })],
      },
    ]),
  ),
  'Wearing stats moods[].score': {
    table: 'wearing_moods',
    column: 'score',
    items: (id, v) => [wearing(id, { mood: v })],
  },
  'Wearing stats occasions[].score': {
    table: 'wearing_occasions',
    column: 'score',
    items: (id, v) => [wearing(id, { occasion: v })],
  },
};

const PROSE = ['Search result item', 'Pagination object'];
const ranged = subsections('Resources and their fields')
  .filter((t) => !PROSE.includes(t))
  .flatMap((title) => resourceLeaves(title).map((leaf) => ({ ...leaf, place: `${title} ${leaf.path}` })))
  .filter((leaf) => leaf.range !== null);

let wh: Warehouse;
let cleanup: () => Promise<void>;
/** Per fragrance id: the flags expected for it. */
const expected: string[] = [];
beforeAll(async () => {
  ({ wh, cleanup } = await freshWarehouse());
  const items: LoadItem[] = [];
  let n = 0;
  for (const leaf of ranged) {
    const [min, max] = leaf.range!;
    const place = PLACES[leaf.place]!;
    for (const v of [min, max, min - 0.01, max + 0.01, -1e6, 1e6]) {
      const id = `f${n++}`;
      items.push(...place.items(id, v));
      if (v < min || v > max) expected.push(`${place.table}.${place.column} ${id} ${v}`);
      if (place.table === 'wearing_stats') {
        const sum = 0.75 + v;
        if (Math.abs(sum - 1) > 0.01) expected.push(`wearing_stats.spring+summer+fall+winter ${id} ${sum}`);
      }
    }
  }
  // Numbers the spec gives no range: any value, never flagged.
  items.push(profile('free', { year: -40, score: 4 }), {
    kind: 'chartSnapshot',
    chartSlug: 'popularity',
    title: 'By popularity',
    snapshotDate: '2024-01-01',
    entries: [
      { rank: -3, id: 'free', name: 'N', brand: 'B', score: 123_456 },
      { rank: 2, id: 'free', name: 'N', brand: 'B', score: -9 },
    ],
  });
  await wh.load(batch(items));
});
afterAll(() => cleanup());

describe('value_flags', () => {
  it('covers exactly the ranges the spec states, each where it is stored', () => {
    expect(ranged.map((l) => l.place).sort()).toEqual(Object.keys(PLACES).sort());
    expect(section('Wearing stats')).toContain('the four sum to approximately 1.0');
  });

  it('stores every value as sent and flags those outside the stated range, nothing else', async () => {
    const flags = await wh.query<{ t: string; c: string; f: string; v: number }>(
      'SELECT table_name AS t, column_name AS c, fragrance_id AS f, value AS v FROM value_flags',
    );
    const got = flags.map((r) => `${r.t}.${r.c} ${r.f} ${Number(r.v.toFixed(9))}`).sort();
    expect(got).toEqual(
      expected.map((e) => e.replace(/ (\S+)$/, (_, v: string) => ` ${Number(Number(v).toFixed(9))}`)).sort(),
    );
    const [stored] = await wh.query<{ n: number }>(
      "SELECT count(*)::INTEGER AS n FROM fragrances WHERE score IN (-1000000, 1000000, 5.01) OR id = 'free'",
    );
    expect(stored!.n).toBe(4);
    expect(await wh.query('SELECT rank, score FROM chart_entries ORDER BY rank')).toEqual([
      { rank: -3, score: 123_456 },
      { rank: 2, score: -9 },
    ]);
  });

  it('names the rule and the run that wrote the value', async () => {
    const [f] = await wh.query<{ rule: string; run_id: string; entry: string | null }>(
      "SELECT rule, run_id, entry FROM value_flags WHERE table_name = 'fragrance_accords' LIMIT 1",
    );
    expect(f).toEqual({
      rule: 'Fragrance profile accords[].strength: 0.0 to 1.0',
      run_id: 'run-1',
      entry: 'position 0',
    });
  });
});
