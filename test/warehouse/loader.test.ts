import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { reviewColumns, type LoadItem, type ProgressMark } from '../../src/domain/items.ts';
import { CONTRACT_TABLES } from '../../src/warehouse/contract.ts';
import { answeredCall, batch, count, freshWarehouse, profile } from './fixtures.ts';

let wh: Warehouse;
let path: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ wh, path, cleanup } = await freshWarehouse());
});
afterEach(async () => {
  await wh.close().catch(() => undefined);
  await cleanup();
});

/** Contract columns only (lineage excluded), in a stable order, for before/after comparisons. */
async function snapshot(w: Warehouse): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of [...CONTRACT_TABLES, 'fragrance_score_history', 'removed_entities', 'quarantine']) {
    const cols = await w.query<{ c: string }>(
      `SELECT column_name AS c FROM duckdb_columns() WHERE table_name = $1 AND column_name NOT LIKE '\\_%' ESCAPE '\\'
       AND column_name NOT IN ('at', 'valid_from', 'valid_to', 'removed_at') ORDER BY column_index`,
      [t],
    );
    const list = cols.map((r) => `"${r.c}"`).join(', ');
    out[t] = await w.query(`SELECT ${list} FROM ${t} ORDER BY ALL`);
  }
  return out;
}

const everyKind: LoadItem[] = [
  profile('f1'),
  profile('f2', { score: 3.5 }),
  { kind: 'fragranceSummary', id: 'f3', name: 'Three', brand: 'Maison X' },
  {
    kind: 'similar',
    fragranceId: 'f1',
    ids: ['f2', 'f3'],
    scores: [0.8, 0.5],
  },
  {
    kind: 'wearing',
    fragranceId: 'f1',
    seasons: { spring: 0.1, summer: 0.2, fall: 0.3, winter: 0.4 },
    moods: [
      { label: 'calm', score: 0.7 },
      { label: 'bold', score: 0.2 },
    ],
    occasions: [{ label: 'office', score: 0.9 }],
  },
  {
    kind: 'reviews',
    fragranceId: 'f1',
    mode: 'replace',
    total: 3,
    ...reviewColumns([
      { date: '2024-05-01', rating: 4, text: null },
      { date: '2024-05-01', rating: 4, text: null },
      { date: '2024-04-01', rating: 2, text: 'meh' },
    ]),
  },
  { kind: 'brand', slug: 'maison-x', name: 'Maison X', country: 'FR', description: 'old house' },
  {
    kind: 'brandCatalogue',
    brandSlug: 'maison-x',
    fragrances: [
      { id: 'f1', name: 'Name f1' },
      { id: 'f2', name: 'N' },
    ],
  },
  { kind: 'perfumer', slug: 'ann-nose', name: 'Ann Nose', nationality: 'FR', bio: 'bio' },
  { kind: 'note', slug: 'rose', name: 'Rose', family: 'floral', description: 'a rose' },
  { kind: 'accord', slug: 'citrus', name: 'citrus' },
  { kind: 'chart', slug: 'top', title: 'Top' },
  {
    kind: 'chartSnapshot',
    chartSlug: 'top',
    title: 'Top 2',
    snapshotDate: '2024-06-01',
    entries: [
      { rank: 1, id: 'f1', name: 'Name f1', brand: 'Maison X', score: 4.1 },
      { rank: 2, id: 'f2', name: 'Name f2', brand: 'Maison X', score: 3.5 },
    ],
  },
  { kind: 'reviewDigest', fragranceId: 'f1', raw: { summary: 'nice', extra: [1, 2] } },
  {
    kind: 'quarantine',
    endpoint: '/v1/fragrances/{id}',
    key: 'bad',
    reason: 'missing name',
    raw: { id: 'bad' },
  },
  {
    kind: 'apiCall',
    at: '2024-06-01T10:00:00.000Z',
    method: 'GET',
    endpoint: '/v1/fragrances/{id}',
    status: 200,
    costCents: 1,
    quotaRemaining: 99,
  },
  {
    kind: 'apiCall',
    at: '2024-06-01T10:00:00.000Z',
    method: 'GET',
    endpoint: '/v1/fragrances/{id}',
    status: 200,
    costCents: 1,
    quotaRemaining: 99,
  },
];

describe('load', () => {
  test('every item kind lands in its contract table with the documented shape', async () => {
    const result = await wh.load(batch(everyKind));
    expect(result.counts).toMatchObject({
      fragrances: 3,
      fragrance_notes: 12,
      fragrance_accords: 4,
      similar_fragrances: 2,
      wearing_moods: 2,
      wearing_occasions: 1,
      reviews: 3,
      brand_fragrances: 2,
      chart_entries: 2,
      api_calls: 2,
      quarantine: 1,
    });
    expect(
      await wh.query(
        `SELECT layer, position, note FROM fragrance_notes WHERE fragrance_id = 'f1' ORDER BY layer, position`,
      ),
    ).toEqual([
      { layer: 'base', position: 0, note: 'Musk' },
      { layer: 'base', position: 1, note: 'Amber' },
      { layer: 'base', position: 2, note: 'Vanilla' },
      { layer: 'middle', position: 0, note: 'Rose' },
      { layer: 'top', position: 0, note: 'Bergamot' },
      { layer: 'top', position: 1, note: 'Lemon' },
    ]);
    expect(await wh.query(`SELECT similar_id, rank FROM similar_fragrances ORDER BY rank`)).toEqual([
      { similar_id: 'f2', rank: 0 },
      { similar_id: 'f3', rank: 1 },
    ]);
    expect(await wh.query(`SELECT label, rank FROM wearing_moods ORDER BY rank`)).toEqual([
      { label: 'calm', rank: 0 },
      { label: 'bold', rank: 1 },
    ]);
    expect(await wh.query(`SELECT title FROM charts`)).toEqual([{ title: 'Top 2' }]);
    expect(
      await wh.query(`SELECT snapshot_date::VARCHAR AS d, rank FROM chart_entries ORDER BY rank`),
    ).toEqual([
      { d: '2024-06-01', rank: 1 },
      { d: '2024-06-01', rank: 2 },
    ]);
    const [digest] = await wh.query<{ raw: string }>(`SELECT raw FROM review_digests`);
    expect(JSON.parse(digest!.raw)).toEqual({ summary: 'nice', extra: [1, 2] });
    // two identical attempts in one batch are two requests to the provider
    expect(await wh.query(`SELECT run_id, status, cost_cents, quota_remaining FROM api_calls`)).toEqual([
      { run_id: 'run-1', status: 200, cost_cents: 1, quota_remaining: 99 },
      { run_id: 'run-1', status: 200, cost_cents: 1, quota_remaining: 99 },
    ]);
    // the summary creates a row with NULL profile columns
    expect(await wh.query(`SELECT name, brand_slug, score FROM fragrances WHERE id = 'f3'`)).toEqual([
      { name: 'Three', brand_slug: null, score: null },
    ]);
  });

  test('loading the same batch twice changes no table and grows no history', async () => {
    await wh.load(batch(everyKind));
    const before = await snapshot(wh);
    const again = await wh.load(batch(everyKind));
    expect(again.counts.api_calls).toBe(0);
    expect(await snapshot(wh)).toEqual(before);
    expect(before.fragrances).toHaveLength(3);
  });

  test('a request reported twice, in one batch or two, is one api_calls row (its call id is its key)', async () => {
    const call = answeredCall;
    const first = await wh.load(batch([call('w1-1', 200), call('w1-1', 200), call('w1-2', 200)]));
    expect(first.counts.api_calls).toBe(2);
    // A spool's report again, and a dead worker's spool read by another: one row per call id,
    // whichever report came first.
    const again = await wh.load(batch([call('w1-2', 200), call('w1-3', 0)], [], 'run-2'));
    expect(again.counts.api_calls).toBe(1);
    expect(await wh.query(`SELECT run_id, status FROM api_calls ORDER BY status DESC, run_id`)).toEqual([
      { run_id: 'run-1', status: 200 },
      { run_id: 'run-1', status: 200 },
      { run_id: 'run-2', status: 0 },
    ]);
  });

  test('upsert: a summary never clobbers profile columns; a later profile updates everything', async () => {
    await wh.load(batch([profile('f1')]));
    await wh.load(batch([{ kind: 'fragranceSummary', id: 'f1', name: 'Renamed', brand: 'Other' }]));
    expect(await wh.query(`SELECT name, brand, brand_slug, year, score FROM fragrances`)).toEqual([
      { name: 'Renamed', brand: 'Other', brand_slug: 'maison-x', year: 2001, score: 4.1 },
    ]);
    await wh.load(batch([profile('f1', { name: 'Final', year: 2002 })]));
    expect(await wh.query(`SELECT name, year FROM fragrances`)).toEqual([{ name: 'Final', year: 2002 }]);
  });

  test('within one batch the last item for a key wins', async () => {
    const r = await wh.load(
      batch([
        profile('f1', { score: 1, notes: { top: ['A', 'B', 'C'], middle: [], base: [] } }),
        profile('f1', { score: 2, notes: { top: ['Z'], middle: [], base: [] } }),
        { kind: 'note', slug: 'rose', name: 'Rose', family: 'floral', description: 'first' },
        { kind: 'note', slug: 'rose', name: 'Rose 2', family: 'floral' },
      ]),
    );
    expect(r.counts.fragrances).toBe(1);
    expect(await wh.query(`SELECT score FROM fragrances`)).toEqual([{ score: 2 }]);
    expect(await wh.query(`SELECT note FROM fragrance_notes`)).toEqual([{ note: 'Z' }]);
    // a list item without description keeps the one seen before it
    expect(await wh.query(`SELECT name, description FROM notes`)).toEqual([
      { name: 'Rose 2', description: 'first' },
    ]);
  });

  test('lists are replaced as a whole, empty lists included', async () => {
    await wh.load(batch(everyKind));
    await wh.load(
      batch([
        profile('f1', { notes: { top: ['Yuzu'], middle: [], base: [] }, accords: [] }),
        { kind: 'similar', fragranceId: 'f1', ids: [], scores: [] },
        { kind: 'brandCatalogue', brandSlug: 'maison-x', fragrances: [{ id: 'f9', name: 'Nine' }] },
        {
          kind: 'wearing',
          fragranceId: 'f1',
          seasons: { spring: 1, summer: 0, fall: 0, winter: 0 },
          moods: [{ label: 'bold', score: 1 }],
          occasions: [],
        },
      ]),
    );
    expect(await wh.query(`SELECT note FROM fragrance_notes WHERE fragrance_id = 'f1'`)).toEqual([
      { note: 'Yuzu' },
    ]);
    expect(await count(wh, 'fragrance_accords', "fragrance_id = 'f1'")).toBe(0);
    expect(await count(wh, 'fragrance_notes', "fragrance_id = 'f2'")).toBe(6);
    expect(await count(wh, 'similar_fragrances')).toBe(0);
    expect(await wh.query(`SELECT fragrance_id FROM brand_fragrances`)).toEqual([{ fragrance_id: 'f9' }]);
    expect(await wh.query(`SELECT label, rank FROM wearing_moods`)).toEqual([{ label: 'bold', rank: 0 }]);
    expect(await count(wh, 'wearing_occasions')).toBe(0);
  });

  test('a key repeated inside one list keeps its first entry and rank', async () => {
    await wh.load(
      batch([
        { kind: 'similar', fragranceId: 'f1', ids: ['f2', 'f3', 'f2'], scores: [0.9, 0.8, 0.1] },
        {
          kind: 'wearing',
          fragranceId: 'f1',
          seasons: { spring: 1, summer: 0, fall: 0, winter: 0 },
          moods: [
            { label: 'calm', score: 0.7 },
            { label: 'calm', score: 0.2 },
          ],
          occasions: [{ label: 'calm', score: 0.5 }],
        },
        {
          kind: 'brandCatalogue',
          brandSlug: 'b',
          fragrances: [
            { id: 'f1', name: 'One' },
            { id: 'f1', name: 'One' },
          ],
        },
      ]),
    );
    expect(
      await wh.query(`SELECT similar_id, rank, similarity_score FROM similar_fragrances ORDER BY rank`),
    ).toEqual([
      { similar_id: 'f2', rank: 0, similarity_score: 0.9 },
      { similar_id: 'f3', rank: 1, similarity_score: 0.8 },
    ]);
    expect(await wh.query(`SELECT label, rank, score FROM wearing_moods`)).toEqual([
      { label: 'calm', rank: 0, score: 0.7 },
    ]);
    expect(await count(wh, 'wearing_occasions')).toBe(1);
    expect(await count(wh, 'brand_fragrances')).toBe(1);
  });

  test('lists stored before a reopen are still replaced, not duplicated', async () => {
    // The loader skips replace-DELETEs, and upserts as plain INSERTs, for keys it believes have
    // no rows; after a reopen that belief is read back from the file.
    await wh.load(batch(everyKind));
    await wh.close();
    wh = await Warehouse.open(path);
    await wh.load(
      batch([
        profile('f1', { notes: { top: ['Yuzu'], middle: [], base: [] } }),
        { kind: 'similar', fragranceId: 'f1', ids: [], scores: [] },
        { kind: 'reviews', fragranceId: 'f1', mode: 'replace', total: 1, ...reviewColumns([]) },
        {
          kind: 'wearing',
          fragranceId: 'f1',
          seasons: { spring: 1, summer: 0, fall: 0, winter: 0 },
          moods: [],
          occasions: [],
        },
      ]),
    );
    expect(await wh.query(`SELECT note FROM fragrance_notes WHERE fragrance_id = 'f1'`)).toEqual([
      { note: 'Yuzu' },
    ]);
    expect(await count(wh, 'similar_fragrances')).toBe(0);
    expect(await count(wh, 'reviews', "fragrance_id = 'f1'")).toBe(0);
    // Upserts too: the rows stored before the reopen are updated, not refused as duplicates.
    expect(await wh.query(`SELECT total FROM review_totals WHERE fragrance_id = 'f1'`)).toEqual([
      { total: 1 },
    ]);
    expect(await wh.query(`SELECT spring FROM wearing_stats WHERE fragrance_id = 'f1'`)).toEqual([
      { spring: 1 },
    ]);
  });

  test('a batch of one shape after a batch of another reads none of its rows', async () => {
    // Merges of empty staging tables are skipped; their work tables must not leak into later batches.
    await wh.load(batch([profile('f1'), { kind: 'removal', entity: 'fragrance', keys: ['gone'] }]));
    await wh.load(batch([{ kind: 'fragranceSummary', id: 'f2', name: 'Two', brand: 'B' }]));
    await wh.load(batch([{ kind: 'fragranceSummary', id: 'f1', name: 'One again', brand: 'B' }]));
    expect(await wh.query(`SELECT id, name, year FROM fragrances ORDER BY id`)).toEqual([
      { id: 'f1', name: 'One again', year: 2001 },
      { id: 'f2', name: 'Two', year: null },
    ]);
    expect(await count(wh, 'fragrance_notes')).toBe(6);
    expect(await count(wh, 'removed_entities')).toBe(0);
  });

  test('score history: one row per observed change, none for an unchanged score', async () => {
    await wh.load(batch([profile('f1', { score: 4 })], [], 'r1'));
    await wh.load(batch([profile('f1', { score: 4 })], [], 'r2'));
    await wh.load(batch([profile('f1', { score: 4.5 })], [], 'r3'));
    const rows = await wh.query<{ score: number; open: boolean; run_id: string }>(
      `SELECT score, valid_to IS NULL AS open, run_id FROM fragrance_score_history ORDER BY valid_from`,
    );
    expect(rows).toEqual([
      { score: 4, open: false, run_id: 'r1' },
      { score: 4.5, open: true, run_id: 'r3' },
    ]);
  });

  test('removal deletes the fragrance and its child rows, keeps history, and is reversible', async () => {
    await wh.load(batch(everyKind));
    const r = await wh.load(batch([{ kind: 'removal', entity: 'fragrance', keys: ['f1', 'never-seen'] }]));
    expect(r.counts.removed_entities).toBe(1);
    for (const t of [
      'fragrance_notes',
      'fragrance_accords',
      'reviews',
      'similar_fragrances',
      'wearing_stats',
      'wearing_moods',
      'review_digests',
    ]) {
      expect(await count(wh, t, "fragrance_id = 'f1'"), t).toBe(0);
    }
    expect(await count(wh, 'brand_fragrances', "fragrance_id = 'f1'")).toBe(0);
    expect(await count(wh, 'fragrances', "id = 'f1'")).toBe(0);
    expect(await count(wh, 'fragrances')).toBe(2);
    expect(await count(wh, 'chart_entries', "fragrance_id = 'f1'")).toBe(1); // dated snapshots stay
    const [hist] = await wh.query<{ last_row: string; restored_at: string | null }>(
      `SELECT last_row, restored_at FROM removed_entities`,
    );
    expect(JSON.parse(hist!.last_row)).toMatchObject({ id: 'f1', name: 'Name f1', score: 4.1 });
    expect(await count(wh, 'fragrance_score_history', "fragrance_id = 'f1' AND valid_to IS NULL")).toBe(0);
    const state = await wh.syncState();
    expect(state.items.find((i) => i.key === 'f1')?.removed).toBe(true);
    expect(state.items.find((i) => i.key === 'never-seen')?.removed).toBe(true);

    await wh.load(batch([{ kind: 'removal', entity: 'fragrance', keys: ['f1'] }]));
    expect(await count(wh, 'removed_entities')).toBe(1);

    await wh.load(batch([profile('f1')]));
    expect(await count(wh, 'removed_entities', 'restored_at IS NOT NULL')).toBe(1);
    expect((await wh.syncState()).items.find((i) => i.key === 'f1')?.removed).toBe(false);
  });

  test('removal of a brand drops its catalogue; a removal followed by the item in one batch keeps it', async () => {
    await wh.load(batch(everyKind));
    await wh.load(
      batch([
        { kind: 'removal', entity: 'brand', keys: ['maison-x'] },
        { kind: 'removal', entity: 'note', keys: ['rose'] },
        { kind: 'note', slug: 'rose', name: 'Rose', family: 'floral' },
      ]),
    );
    expect(await count(wh, 'brands')).toBe(0);
    expect(await count(wh, 'brand_fragrances')).toBe(0);
    expect(await wh.query(`SELECT slug, description FROM notes`)).toEqual([
      { slug: 'rose', description: 'a rose' },
    ]);
  });

  test('an invalid item is quarantined and the rest of the batch loads', async () => {
    const bad = { kind: 'fragrance', id: 'broken', name: 'No score' } as unknown as LoadItem;
    const r = await wh.load(batch([profile('f1'), bad, profile('f2')]));
    expect(r.invalidItems).toBe(1);
    expect(await count(wh, 'fragrances')).toBe(2);
    const [q] = await wh.query<{ endpoint: string; key: string; reason: string; raw: string }>(
      `SELECT endpoint, key, reason, raw FROM quarantine`,
    );
    expect(q).toMatchObject({ endpoint: 'loader', key: 'broken' });
    expect(q!.reason).toMatch(/invalid fragrance item/);
    expect(JSON.parse(q!.raw)).toEqual(bad);
  });

  test('a review dated on a day that does not exist is quarantined with its list, not the batch', async () => {
    const reviews = (id: string, date: string): LoadItem => ({
      kind: 'reviews',
      fragranceId: id,
      mode: 'replace',
      total: 1,
      ...reviewColumns([{ date, rating: 4, text: null }]),
    });
    const r = await wh.load(batch([reviews('f1', '2024-02-30'), reviews('f2', '2024-02-29')]));
    expect(r.invalidItems).toBe(1);
    expect(await count(wh, 'reviews')).toBe(1);
    expect(await count(wh, 'quarantine', "endpoint = 'loader' AND key = 'f1'")).toBe(1);
  });

  test('a non-finite number makes an item invalid', async () => {
    const r = await wh.load(
      batch([profile('f1', { score: Number.POSITIVE_INFINITY }), profile('f2', { score: Number.NaN })]),
    );
    expect(r.invalidItems).toBe(2);
    expect(await count(wh, 'fragrances')).toBe(0);
    expect(await count(wh, 'quarantine', "endpoint = 'loader'")).toBe(2);
  });

  test('a batch that fails mid-way writes neither rows nor progress', async () => {
    const badMark = { kind: 'walk', walk: 'notes', page: 2, total: null, done: false } as never;
    await expect(
      wh.load(
        batch(
          [profile('f1'), { kind: 'brand', slug: 'b', name: 'B', country: 'FR', description: '' }],
          [{ kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'profile' }, badMark],
        ),
      ),
    ).rejects.toMatchObject({ code: 'WAREHOUSE' });
    expect(await count(wh, 'fragrances')).toBe(0);
    expect(await count(wh, 'brands')).toBe(0);
    expect(await count(wh, 'sync_items')).toBe(0);
    expect(await count(wh, 'sync_walks')).toBe(0);
    // The warehouse stays usable after the rollback, and the failed batch's staged rows went
    // with it: a batch that stages the same tables merges only its own.
    await wh.load(
      batch(
        [profile('f2'), { kind: 'brand', slug: 'c', name: 'C', country: 'FR', description: '' }],
        [{ kind: 'fetched', entity: 'fragrance', key: 'f2', dataset: 'profile' }],
      ),
    );
    expect(await wh.query(`SELECT id FROM fragrances`)).toEqual([{ id: 'f2' }]);
    expect(await wh.query(`SELECT slug FROM brands`)).toEqual([{ slug: 'c' }]);
    expect(await wh.query(`SELECT key FROM sync_items WHERE entity = 'fragrance'`)).toEqual([{ key: 'f2' }]);
  });
});

describe('reviews', () => {
  const r = (date: string, rating: number, text: string | null = null) => ({ date, rating, text });

  test('replace stores the multiset exactly, duplicates included', async () => {
    await wh.load(
      batch([
        {
          kind: 'reviews',
          fragranceId: 'f1',
          mode: 'replace',
          total: 2,
          ...reviewColumns([r('2024-01-01', 5), r('2024-01-01', 5)]),
        },
      ]),
    );
    await wh.load(
      batch([
        {
          kind: 'reviews',
          fragranceId: 'f1',
          mode: 'replace',
          total: 3,
          ...reviewColumns([r('2024-02-01', 1, 'x'), r('2024-01-01', 5), r('2024-01-01', 5)]),
        },
      ]),
    );
    expect(
      await wh.query(
        `SELECT date::VARCHAR AS date, rating, text FROM reviews ORDER BY date, text NULLS FIRST`,
      ),
    ).toEqual([
      { date: '2024-01-01', rating: 5, text: null },
      { date: '2024-01-01', rating: 5, text: null },
      { date: '2024-02-01', rating: 1, text: 'x' },
    ]);
    expect((await wh.syncState()).reviewTotals.get('f1')).toBe(3);
  });

  test('prepend adds the newest reviews once; a replay is skipped; a gap is quarantined', async () => {
    const base = { kind: 'reviews', fragranceId: 'f1' } as const;
    await wh.load(
      batch([
        { ...base, mode: 'replace', total: 2, ...reviewColumns([r('2024-01-01', 3), r('2024-01-01', 3)]) },
      ]),
    );
    const prepend: LoadItem = { ...base, mode: 'prepend', total: 3, ...reviewColumns([r('2024-01-02', 3)]) };
    await wh.load(batch([prepend]));
    await wh.load(batch([prepend]));
    expect(await count(wh, 'reviews')).toBe(3);
    expect((await wh.syncState()).reviewTotals.get('f1')).toBe(3);

    // two chained prepends in one batch
    await wh.load(
      batch([
        { ...base, mode: 'prepend', total: 4, ...reviewColumns([r('2024-01-03', 4)]) },
        { ...base, mode: 'prepend', total: 6, ...reviewColumns([r('2024-01-04', 4), r('2024-01-04', 4)]) },
      ]),
    );
    expect(await count(wh, 'reviews')).toBe(6);

    await wh.load(batch([{ ...base, mode: 'prepend', total: 10, ...reviewColumns([r('2024-02-01', 1)]) }]));
    expect(await count(wh, 'reviews')).toBe(6);
    expect((await wh.syncState()).reviewTotals.get('f1')).toBe(6);
    expect(await count(wh, 'quarantine', "key = 'f1' AND reason LIKE 'reviews prepend leaves a gap%'")).toBe(
      1,
    );
  });
});

describe('progress marks', () => {
  test('fetched, walk and discovered marks are stored and read back by syncState', async () => {
    await wh.load(
      batch(
        [profile('f1')],
        [
          { kind: 'discovered', entity: 'fragrance', key: 'f2', source: 'fragrances' },
          { kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'profile' },
          { kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'similar' },
          { kind: 'walk', walk: 'fragrances', page: 1, total: 120, done: false },
          { kind: 'walk', walk: 'fragrances', page: 2, total: 120, done: false, pageSize: 7 },
        ],
      ),
    );
    const s = await wh.syncState();
    expect(s.walks).toEqual([
      { walk: 'fragrances', page: 2, total: 120, done: false, at: expect.stringMatching(/Z$/), pageSize: 7 },
    ]);
    const f1 = s.items.find((i) => i.key === 'f1');
    expect(Object.keys(f1!.fetched).sort()).toEqual(['profile', 'similar']);
    expect(Date.parse(f1!.fetched.profile!)).toBeGreaterThan(Date.now() - 60_000);
    expect(s.items.find((i) => i.key === 'f2')).toMatchObject({
      entity: 'fragrance',
      removed: false,
      fetched: {},
    });
    const [src] = await wh.query(`SELECT first_source FROM sync_items WHERE key = 'f2'`);
    expect(src).toEqual({ first_source: 'fragrances' });
  });

  test('a later walk mark replaces the row of its walk whole, in a later batch and run; other walks stay', async () => {
    const walk = (w: string, page: number, extra: object = {}) =>
      ({ kind: 'walk', walk: w, page, total: 120, done: false, ...extra }) as ProgressMark;
    await wh.load(batch([], [walk('fragrances', 1, { pageSize: 7, kept: [[1]] }), walk('notes', 3)]));
    const all = `SELECT walk, page, total, done, run_id, page_size, kept_pages, "at"::VARCHAR AS at FROM sync_walks ORDER BY walk`;
    const [, notes] = await wh.query<{ at: string }>(all);
    await wh.load(batch([], [walk('fragrances', 2, { done: true, total: 14 })], 'run-2'));
    const after = await wh.query<{ walk: string; at: string }>(all);
    expect(after.map(({ at: _at, ...r }) => r)).toEqual([
      {
        walk: 'fragrances',
        page: 2,
        total: 14,
        done: true,
        run_id: 'run-2',
        page_size: null,
        kept_pages: null,
      },
      { walk: 'notes', page: 3, total: 120, done: false, run_id: 'run-1', page_size: null, kept_pages: null },
    ]);
    expect(after[1]!.at).toBe(notes!.at);
  });

  test('an unknown dataset name is refused before anything is written', async () => {
    await expect(
      wh.load(
        batch([profile('f1')], [{ kind: 'fetched', entity: 'fragrance', key: 'f1', dataset: 'profiel' }]),
      ),
    ).rejects.toMatchObject({ code: 'WAREHOUSE' });
    expect(await count(wh, 'fragrances')).toBe(0);
  });
});
