import { expect, test } from 'vitest';
import type { z } from 'zod';
import type { EndpointName } from '../../src/domain/endpoints.ts';
import { surelyExact } from '../../src/api/fast-check.ts';
import * as S from '../../src/api/schemas.ts';

const SAMPLES: [EndpointName, z.ZodType, unknown][] = [
  [
    'getFragrance',
    S.FragranceProfile,
    {
      id: 'b/f',
      name: 'F',
      brand: 'B',
      brandSlug: 'b',
      perfumer: 'P',
      perfumerSlug: 'p',
      year: 2001,
      score: 4.2,
      notes: { top: ['a'], middle: [], base: ['c', 'd'] },
      accords: [{ name: 'woody', strength: 0.7 }],
    },
  ],
  [
    'getWearingStats',
    S.WearingStats,
    {
      fragranceId: 'x1',
      seasons: { spring: 0.1, summer: 0.2, fall: 1, winter: 0 },
      moods: [{ label: 'calm', score: 0.5 }],
      occasions: [{ label: 'office', score: 0.25 }],
    },
  ],
  [
    'getSimilar',
    S.SimilarResponse,
    { id: 'x1', similar: [{ id: 'x2', name: 'N', brand: 'B', similarityScore: 0.9 }] },
  ],
  [
    'getReviews',
    S.ReviewsResponse,
    {
      fragranceId: 'x1',
      reviews: [
        { rating: 4.5, text: 'nice', date: '2024-01-02' },
        { rating: 0.5, text: null, date: '2024-01-01' },
      ],
      pagination: { page: 1, limit: 50, total: 2 },
    },
  ],
  [
    'listFragrances',
    S.FragranceListResponse,
    { data: [{ id: 'x1', name: 'N', brand: 'B' }], pagination: { page: 2, limit: 50, total: 51 } },
  ],
];

const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  '',
  'x',
  '2024-13-99x',
  '2024-02-30',
  -1,
  0,
  0.3,
  1.5,
  6,
  2 ** 60,
  true,
  [],
  {},
  [{}],
];

/** Every variant of `value` with one field (at any depth) replaced, removed or added. */
function* mutations(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      for (const m of [...REPLACEMENTS, ...mutations(value[i])]) yield value.map((v, j) => (j === i ? m : v));
    yield [...value, ...value.slice(0, 1)];
  } else if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      const { [k]: _dropped, ...rest } = obj;
      yield rest;
      for (const m of [...REPLACEMENTS, ...mutations(obj[k])]) yield { ...obj, [k]: m };
    }
    yield { ...obj, extra: 1 };
  }
}

test.each(SAMPLES)(
  '%s: the fast path takes valid bodies as they are, and never one zod refuses or would change',
  (endpoint, schema, sample) => {
    expect(surelyExact(endpoint, sample)).toBe(true);
    expect(schema.parse(sample)).toEqual(sample);
    let refused = 0;
    let checked = 0;
    for (const variant of mutations(sample)) {
      const body: unknown = JSON.parse(JSON.stringify(variant) ?? 'null'); // as a response would arrive
      checked++;
      if (!surelyExact(endpoint, body)) {
        refused++;
        continue;
      }
      const zod = schema.safeParse(body);
      expect(zod.success, JSON.stringify(body)).toBe(true);
      expect(zod.data, JSON.stringify(body)).toEqual(body);
    }
    expect(checked).toBeGreaterThan(40);
    expect(refused).toBeGreaterThan(checked / 2);
  },
);

test('a review page dated on a day that does not exist is refused by zod too', () => {
  const page = {
    fragranceId: 'x',
    reviews: [{ rating: 4, text: null, date: '2023-02-29' }],
    pagination: { page: 1, limit: 50, total: 1 },
  };
  expect(surelyExact('getReviews', page)).toBe(false);
  expect(S.ReviewsResponse.safeParse(page).success).toBe(false);
  page.reviews[0]!.date = '2024-02-29';
  expect(surelyExact('getReviews', page)).toBe(true);
});

test('other endpoints always go to zod', () => {
  expect(surelyExact('getBrand', { slug: 'b' })).toBe(false);
});
