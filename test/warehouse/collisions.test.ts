import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadItem } from '../../src/domain/items.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { batch, count, freshWarehouse, profile } from './fixtures.ts';

/**
 * Key collisions keep every entry the service sent: the contract row is the first entry of a
 * key in API order, the later ones go to the table's overflow twin, which is replaced with
 * its list. A record that cannot be stored is quarantined alone; the rest of the batch loads.
 */
let wh: Warehouse;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, cleanup } = await freshWarehouse());
});
afterEach(() => cleanup());

const similar = (id: string, ids: string[], scores: number[]): LoadItem => ({
  kind: 'similar',
  fragranceId: id,
  ids,
  scores,
});
const chart = (entries: [number, string][]): LoadItem => ({
  kind: 'chartSnapshot',
  chartSlug: 'top',
  title: 'Top',
  snapshotDate: '2024-05-01',
  entries: entries.map(([rank, id]) => ({ rank, id, name: `N ${id}`, brand: 'B', score: 10 - rank })),
});

describe('key collisions', () => {
  it('a similar list naming an id twice: first occurrence in the contract table, the other in overflow', async () => {
    await wh.load(batch([profile('f1'), similar('f1', ['a', 'b', 'a', 'a'], [0.9, 0.8, 0.7, 0.7])]));
    expect(
      await wh.query('SELECT similar_id, rank, similarity_score FROM similar_fragrances ORDER BY rank'),
    ).toEqual([
      { similar_id: 'a', rank: 0, similarity_score: 0.9 },
      { similar_id: 'b', rank: 1, similarity_score: 0.8 },
    ]);
    expect(
      await wh.query(
        'SELECT similar_id, rank, similarity_score FROM similar_fragrances_overflow ORDER BY rank',
      ),
    ).toEqual([
      { similar_id: 'a', rank: 2, similarity_score: 0.7 },
      { similar_id: 'a', rank: 3, similarity_score: 0.7 },
    ]);
    // Replaced with its list: a list without repeats leaves no overflow behind.
    await wh.load(batch([similar('f1', ['c'], [0.5])]));
    expect(await count(wh, 'similar_fragrances_overflow')).toBe(0);
    await wh.load(batch([similar('f1', ['c', 'c'], [0.5, 0.4])]));
    expect(await count(wh, 'similar_fragrances_overflow')).toBe(1);
    // And removed with its fragrance.
    await wh.load(batch([{ kind: 'removal', entity: 'fragrance', keys: ['f1'] }]));
    expect(await count(wh, 'similar_fragrances_overflow')).toBe(0);
  });

  it('a repeated mood or occasion label: the first in the contract table, the rest in overflow', async () => {
    const wearing = (moods: [string, number][]): LoadItem => ({
      kind: 'wearing',
      fragranceId: 'f1',
      seasons: { spring: 0.25, summer: 0.25, fall: 0.25, winter: 0.25 },
      moods: moods.map(([label, score]) => ({ label, score })),
      occasions: [
        { label: '', score: 0.3 },
        { label: '', score: 0.2 },
      ],
    });
    await wh.load(
      batch([
        wearing([
          ['calm', 0.9],
          ['bold', 0.5],
          ['calm', 0.4],
        ]),
      ]),
    );
    expect(await wh.query('SELECT label, rank, score FROM wearing_moods ORDER BY rank')).toEqual([
      { label: 'calm', rank: 0, score: 0.9 },
      { label: 'bold', rank: 1, score: 0.5 },
    ]);
    expect(
      await wh.query('SELECT list, label, rank, score FROM wearing_labels_overflow ORDER BY list'),
    ).toEqual([
      { list: 'moods', label: 'calm', rank: 2, score: 0.4 },
      { list: 'occasions', label: '', rank: 1, score: 0.2 },
    ]);
    expect(await wh.query('SELECT label, rank FROM wearing_occasions')).toEqual([{ label: '', rank: 0 }]);
    await wh.load(batch([wearing([['calm', 0.9]])]));
    expect(await wh.query('SELECT list FROM wearing_labels_overflow')).toEqual([{ list: 'occasions' }]);
  });

  it("tied chart ranks: the first in the API's order is the contract row, the others kept with their position", async () => {
    await wh.load(
      batch([
        chart([
          [1, 'z'],
          [2, 'y'],
          [2, 'b'],
          [2, 'a'],
          [5, 'x'],
        ]),
      ]),
    );
    expect(await wh.query('SELECT rank, fragrance_id FROM chart_entries ORDER BY rank')).toEqual([
      { rank: 1, fragrance_id: 'z' },
      { rank: 2, fragrance_id: 'y' },
      { rank: 5, fragrance_id: 'x' },
    ]);
    expect(
      await wh.query(
        'SELECT position, rank, fragrance_id, name FROM chart_entries_overflow ORDER BY position',
      ),
    ).toEqual([
      { position: 2, rank: 2, fragrance_id: 'b', name: 'N b' },
      { position: 3, rank: 2, fragrance_id: 'a', name: 'N a' },
    ]);
    // The same chart read again that day replaces both.
    await wh.load(
      batch([
        chart([
          [1, 'z'],
          [1, 'q'],
        ]),
      ]),
    );
    expect(await count(wh, 'chart_entries')).toBe(1);
    expect(await wh.query('SELECT position, fragrance_id FROM chart_entries_overflow')).toEqual([
      { position: 1, fragrance_id: 'q' },
    ]);
  });
});

describe('records that cannot be stored', () => {
  it('a year beyond 32 bits quarantines that profile alone, with its payload; the batch loads', async () => {
    const bad = profile('f-big', { year: 2 ** 40 });
    await wh.load(batch([profile('f1'), bad, chart([[2 ** 31, 'f1']]), similar('f1', ['a'], [0.5])]));
    expect(await wh.query('SELECT id FROM fragrances')).toEqual([{ id: 'f1' }]);
    expect(await count(wh, 'similar_fragrances')).toBe(1);
    const q = await wh.query<{ endpoint: string; key: string; reason: string; scope: string; raw: string }>(
      'SELECT endpoint, key, reason, scope, raw::VARCHAR AS raw FROM quarantine ORDER BY key',
    );
    expect(q.map((r) => [r.endpoint, r.key, r.scope])).toEqual([
      ['loader', 'f-big', 'item'],
      ['loader', 'top', 'item'],
    ]);
    expect(q[0]!.reason).toMatch(/^invalid fragrance item at year: /);
    expect(JSON.parse(q[0]!.raw)).toEqual(bad);
  });
});

describe('a brand catalogue not known complete', () => {
  it('adds the members it read and removes none; a complete one replaces them', async () => {
    const catalogue = (ids: string[], complete?: boolean): LoadItem => ({
      kind: 'brandCatalogue',
      brandSlug: 'b1',
      fragrances: ids.map((id) => ({ id, name: id })),
      ...(complete === undefined ? {} : { complete }),
    });
    const members = async () =>
      (await wh.query<{ id: string }>('SELECT fragrance_id AS id FROM brand_fragrances ORDER BY 1')).map(
        (r) => r.id,
      );
    await wh.load(batch([catalogue(['a', 'b', 'c'])]));
    await wh.load(batch([catalogue(['c', 'd'], false)]));
    expect(await members()).toEqual(['a', 'b', 'c', 'd']);
    await wh.load(batch([catalogue(['c', 'd'])]));
    expect(await members()).toEqual(['c', 'd']);
  });
});
