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

describe('parameter bounds from the spec', () => {
  it('search: q of at least 2 non-blank characters, limit 1..25, known types', () => {
    expect(searchQuery({ q: 'ro' })).toEqual({ q: 'ro', limit: '20' });
    expect(searchQuery({ q: 'rose', type: 'note', limit: 25 })).toEqual({
      q: 'rose',
      type: 'note',
      limit: '25',
    });
    for (const q of ['', 'a', '  ', ' a ']) refused(() => searchQuery({ q }));
    for (const limit of [0, 26, 1.5, Number.NaN]) refused(() => searchQuery({ q: 'rose', limit }));
    refused(() => searchQuery({ q: 'rose', type: 'house' as never }));
  });

  it('pages start at 1; reviews stop at 10000; limits stop at 50', () => {
    expect(pageQuery('listNotes')).toEqual({ page: '1', limit: '20' });
    expect(pageQuery('getReviews', { page: 10_000, limit: 50 })).toEqual({ page: '10000', limit: '50' });
    expect(pageQuery('getBrandFragrances', { page: 123_456 }).page).toBe('123456');
    refused(() => pageQuery('getReviews', { page: 10_001 }));
    for (const endpoint of [
      'listFragrances',
      'getReviews',
      'listNotes',
      'listAccords',
      'getBrandFragrances',
    ] as const) {
      refused(() => pageQuery(endpoint, { page: 0 }));
      refused(() => pageQuery(endpoint, { limit: 0 }));
      refused(() => pageQuery(endpoint, { limit: 51 }));
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

  it('batch takes 1..50 non-empty ids', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `id-${i}`);
    expect(batchBody(fifty).ids).toEqual(fifty);
    expect(refused(() => batchBody([...fifty, 'x'])).context.count).toBe(51);
    refused(() => batchBody([]));
    refused(() => batchBody(['a', '']));
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
    refused(() => enrichBody({ id: '' }));
  });
});
