import { describe, expect, test } from 'vitest';
import { surelyValid } from '../../src/warehouse/fast-check.ts';
import { reviewColumns, type LoadItem } from '../../src/domain/items.ts';
import { ITEM, checkItem } from '../../src/warehouse/validate.ts';
import { profile } from './fixtures.ts';

const samples: LoadItem[] = [
  profile('f1'),
  profile('f2', { notes: { top: [], middle: [], base: [] }, accords: [] }),
  { kind: 'fragranceSummary', id: 'f3', name: 'Three', brand: 'Maison X' },
  {
    kind: 'similar',
    fragranceId: 'f1',
    ids: ['f2'],
    scores: [0.8],
  },
  {
    kind: 'wearing',
    fragranceId: 'f1',
    seasons: { spring: 0.1, summer: 0.2, fall: 0.3, winter: 0.4 },
    moods: [{ label: 'calm', score: 0.7 }],
    occasions: [{ label: 'office', score: 0.9 }],
  },
  {
    kind: 'reviews',
    fragranceId: 'f1',
    mode: 'prepend',
    total: 2,
    ...reviewColumns([
      { date: '2024-01-02', rating: 4, text: 'Lovely' },
      { date: '2023-12-31', rating: 2.5, text: null },
    ]),
  },
  {
    kind: 'apiCall',
    at: '2026-01-01T00:00:00.000Z',
    method: 'GET',
    endpoint: '/v1/fragrances/{id}',
    status: 200,
    costCents: 1,
    quotaRemaining: null,
  },
];

const BAD: unknown[] = [
  undefined,
  null,
  'x',
  '2024-1-2',
  1.5,
  -1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  [],
  {},
  [1],
  ['x'],
  [{}],
];

/** Every copy of `value` with one leaf or node (at any depth) replaced by one of BAD or deleted. */
function* mutants(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      for (const m of [...BAD, ...mutants(value[i])]) yield value.map((e, j) => (j === i ? m : e));
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const { [key]: child, ...rest } = value as Record<string, unknown>;
      yield rest;
      for (const m of [...BAD, ...mutants(child)]) yield { ...rest, [key]: m };
    }
  }
}

describe('fast item checks', () => {
  test('the valid samples pass both checks, and checkItem returns them as they are', () => {
    for (const item of samples) {
      expect(ITEM.safeParse(item).success).toBe(true);
      expect(surelyValid(item)).toBe(true);
      expect(checkItem(item)).toEqual(item);
    }
  });

  test('never accepts what zod refuses (every one-field mutation of every sample)', () => {
    let refused = 0;
    for (const item of samples) {
      for (const m of mutants(item)) {
        if (!ITEM.safeParse(m).success) {
          refused++;
          expect(surelyValid(m), JSON.stringify(m)).toBe(false);
          expect(checkItem(m).kind).toBe('quarantine');
        }
      }
    }
    expect(refused).toBeGreaterThan(500);
  });

  test('objects that are not plain JSON objects go to zod', () => {
    class Summary {
      kind = 'fragranceSummary';
      id = 'f';
      name = 'n';
      brand = 'b';
    }
    expect(surelyValid(new Summary())).toBe(false);
    expect(surelyValid([samples[2]])).toBe(false);
    expect(surelyValid({ ...samples[2], name: new String('n') })).toBe(false);
  });

  test('list columns of different lengths are refused by both checks', () => {
    const similar = { kind: 'similar', fragranceId: 'f1', ids: ['f2', 'f3'], scores: [0.8] };
    const reviews = { ...samples[5]!, texts: ['one', 'two', 'three'] };
    for (const item of [similar, reviews]) {
      expect(surelyValid(item)).toBe(false);
      expect(ITEM.safeParse(item).success).toBe(false);
      expect(checkItem(item)).toMatchObject({ kind: 'quarantine', reason: expect.stringMatching(/length/) });
    }
  });

  test('lists as objects (the item shape before columns) are quarantined with the item, not read', () => {
    const objects = [
      {
        kind: 'similar',
        fragranceId: 'f1',
        entries: [{ id: 'f2', name: 'Two', brand: 'B', similarityScore: 0.8 }],
      },
      {
        kind: 'reviews',
        fragranceId: 'f1',
        mode: 'replace',
        total: 1,
        reviews: [{ date: '2024-01-02', rating: 4, text: 'Lovely' }],
      },
    ];
    for (const item of objects)
      expect(checkItem(item)).toEqual({
        kind: 'quarantine',
        endpoint: 'loader',
        key: 'f1',
        reason: expect.stringMatching(/^invalid (similar|reviews) item at (ids|dates): /),
        raw: item,
        scope: 'item',
      });
  });
});
