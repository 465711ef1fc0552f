import { describe, expect, it } from 'vitest';
import { RequestInvalidError } from '../../src/errors.ts';
import {
  batchBody,
  compareQuery,
  enrichBody,
  listFragrancesQuery,
  pageQuery,
  searchQuery,
  similarQuery,
} from '../../src/api/params.ts';

function refused(fn: () => unknown): RequestInvalidError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RequestInvalidError);
    return err as RequestInvalidError;
  }
  throw new Error('expected a RequestInvalidError');
}

/** What the spec states and nothing more (test/api/spec-conformance.test.ts reads the bounds from it). */
describe('parameter bounds from the spec', () => {
  it('search: q of at least 2 characters, limit 1..25, known types', () => {
    expect(searchQuery({ q: 'ro' })).toEqual({ q: 'ro', limit: '20' });
    expect(searchQuery({ q: 'rose', type: 'note', limit: 25 })).toEqual({
      q: 'rose',
      type: 'note',
      limit: '25',
    });
    // Characters are code points: an emoji is one (two UTF-16 units). Blanks are characters.
    for (const q of ['', 'a', '😀']) refused(() => searchQuery({ q }));
    for (const q of ['  ', ' a', '😀😀']) expect(searchQuery({ q }).q).toBe(q);
    for (const limit of [0, 26, 1.5, Number.NaN]) refused(() => searchQuery({ q: 'rose', limit }));
    refused(() => searchQuery({ q: 'rose', type: 'house' as never }));
  });

  it('fragrance list and reviews: pages from 1 (reviews to 10000), limits 1..50', () => {
    expect(pageQuery('getReviews', { page: 10_000, limit: 50 })).toEqual({ page: '10000', limit: '50' });
    refused(() => pageQuery('getReviews', { page: 10_001 }));
    for (const endpoint of ['listFragrances', 'getReviews'] as const) {
      refused(() => pageQuery(endpoint, { page: 0 }));
      refused(() => pageQuery(endpoint, { limit: 0 }));
      refused(() => pageQuery(endpoint, { limit: 51 }));
      refused(() => pageQuery(endpoint, { page: 1.5 }));
      expect(pageQuery(endpoint, { limit: 50 }).limit).toBe('50');
    }
  });

  it('notes, accords, brand catalogues: the spec states a maximum limit (50) and nothing else', () => {
    expect(pageQuery('listNotes')).toEqual({ page: '1', limit: '20' });
    expect(pageQuery('getBrandFragrances', { page: 123_456 }).page).toBe('123456');
    for (const endpoint of ['listNotes', 'listAccords', 'getBrandFragrances'] as const) {
      expect(pageQuery(endpoint, { page: 0, limit: 0 })).toEqual({ page: '0', limit: '0' });
      refused(() => pageQuery(endpoint, { limit: 51 }));
      refused(() => pageQuery(endpoint, { page: 2.5 }));
      expect(pageQuery(endpoint, { limit: 50 }).limit).toBe('50');
    }
    const err = refused(() => pageQuery('listAccords', { limit: 51 }));
    expect(err.message).toContain('/v1/accords');
    expect(err.context.limit).toBe(51);
  });

  it('fragrance list q: 1..100 characters', () => {
    expect(listFragrancesQuery({ q: 'x'.repeat(100) }).q).toHaveLength(100);
    refused(() => listFragrancesQuery({ q: 'x'.repeat(101) }));
    refused(() => listFragrancesQuery({ q: '' }));
  });

  it('similar limit 1..50 with the spec default 12', () => {
    expect(similarQuery()).toEqual({ limit: '12' });
    expect(similarQuery({ limit: 50 })).toEqual({ limit: '50' });
    refused(() => similarQuery({ limit: 51 }));
  });

  it('compare needs two different, non-empty ids', () => {
    expect(compareQuery('a', 'b')).toEqual({ a: 'a', b: 'b' });
    refused(() => compareQuery('a', 'a'));
    refused(() => compareQuery('', 'b'));
    refused(() => compareQuery('a', ''));
  });

  it('batch takes 1..50 ids, strings (an empty one too: the spec does not forbid it)', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `id-${i}`);
    expect(batchBody(fifty).ids).toEqual(fifty);
    expect(refused(() => batchBody([...fifty, 'x'])).context.count).toBe(51);
    refused(() => batchBody([]));
    expect(batchBody(['a', '']).ids).toEqual(['a', '']);
    refused(() => batchBody(['a', 7 as never]));
  });

  it('enrich limits 1..20, omitted when not given', () => {
    expect(enrichBody({ id: 'a/b' })).toEqual({ id: 'a/b' });
    expect(enrichBody({ id: 'a', similarLimit: 20, reviewLimit: 1 })).toEqual({
      id: 'a',
      similarLimit: 20,
      reviewLimit: 1,
    });
    refused(() => enrichBody({ id: 'a', similarLimit: 21 }));
    refused(() => enrichBody({ id: 'a', reviewLimit: 0 }));
    expect(enrichBody({ id: '' })).toEqual({ id: '' });
    refused(() => enrichBody({ id: 7 as never }));
  });
});
