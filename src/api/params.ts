import { RequestInvalidError } from '../errors.ts';
import { ENDPOINTS, MAX_PAGE_SIZE, type EndpointName } from '../domain/endpoints.ts';

/**
 * Parameter checks from the spec's "Parameter bounds", applied before anything is sent:
 * a request the service would refuse with a 400 still costs a quota unit and maybe cents.
 * Defaults the spec declares are sent explicitly, so every request says what it asks for.
 */

export const SEARCH_TYPES = ['fragrance', 'note', 'brand', 'perfumer', 'collection'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const MAX_REVIEW_PAGE = 10_000;
export const MAX_LIST_QUERY_CHARS = 100;
export const MIN_SEARCH_QUERY_CHARS = 2;

export const DEFAULT_LIMIT = {
  search: 20,
  listFragrances: 20,
  getReviews: 20,
  getSimilar: 12,
  listNotes: 20,
  listAccords: 20,
  getBrandFragrances: 20,
} as const;

export interface PageParams {
  page?: number;
  limit?: number;
}

export type Query = Record<string, string>;

function fail(endpoint: EndpointName, message: string, context: Record<string, string | number> = {}): never {
  throw new RequestInvalidError(ENDPOINTS[endpoint].template, message, {
    endpointName: endpoint,
    ...context,
  });
}

export function checkInt(
  endpoint: EndpointName,
  name: string,
  value: unknown,
  min: number,
  max: number,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    fail(endpoint, `${name} must be an integer, got ${String(value)}`);
  if (value < min || value > max)
    fail(endpoint, `${name} must be between ${min} and ${max}, got ${value}`, { [name]: value });
  return value;
}

export function checkNonEmpty(endpoint: EndpointName, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') fail(endpoint, `${name} must be a non-empty string`);
  return value;
}

/** page >= 1 (reviews: <= 10000) and 1 <= limit <= the endpoint's ceiling. */
export function pageQuery(
  endpoint: keyof typeof DEFAULT_LIMIT & keyof typeof MAX_PAGE_SIZE,
  p: PageParams = {},
): Query {
  const maxPage = endpoint === 'getReviews' ? MAX_REVIEW_PAGE : Number.MAX_SAFE_INTEGER;
  const page = checkInt(endpoint, 'page', p.page ?? 1, 1, maxPage);
  const limit = checkInt(endpoint, 'limit', p.limit ?? DEFAULT_LIMIT[endpoint], 1, MAX_PAGE_SIZE[endpoint]);
  return { page: String(page), limit: String(limit) };
}

export interface SearchParams {
  q: string;
  type?: SearchType;
  limit?: number;
}

export function searchQuery(p: SearchParams): Query {
  // Trimmed: a server that trims would answer '  ' with a paid INVALID_QUERY.
  if (typeof p.q !== 'string' || [...p.q.trim()].length < MIN_SEARCH_QUERY_CHARS)
    fail('search', `q must have at least ${MIN_SEARCH_QUERY_CHARS} non-blank characters`);
  const limit = checkInt('search', 'limit', p.limit ?? DEFAULT_LIMIT.search, 1, MAX_PAGE_SIZE.search);
  const query: Query = { q: p.q, limit: String(limit) };
  if (p.type !== undefined) {
    if (!(SEARCH_TYPES as readonly string[]).includes(p.type))
      fail('search', `type must be one of ${SEARCH_TYPES.join(', ')}`);
    query.type = p.type;
  }
  return query;
}

export interface ListFragrancesParams extends PageParams {
  /** Free-text filter, 1 to 100 characters. */
  q?: string;
}

export function listFragrancesQuery(p: ListFragrancesParams = {}): Query {
  const query = pageQuery('listFragrances', p);
  if (p.q !== undefined) {
    if (typeof p.q !== 'string' || p.q === '' || [...p.q].length > MAX_LIST_QUERY_CHARS)
      fail('listFragrances', `q must have 1 to ${MAX_LIST_QUERY_CHARS} characters`);
    query.q = p.q;
  }
  return query;
}

export function similarQuery(p: { limit?: number } = {}): Query {
  const limit = checkInt(
    'getSimilar',
    'limit',
    p.limit ?? DEFAULT_LIMIT.getSimilar,
    1,
    MAX_PAGE_SIZE.getSimilar,
  );
  return { limit: String(limit) };
}

export function compareQuery(a: string, b: string): Query {
  checkNonEmpty('compare', 'a', a);
  checkNonEmpty('compare', 'b', b);
  if (a === b) fail('compare', 'a and b must differ');
  return { a, b };
}

export function batchBody(ids: string[]): { ids: string[] } {
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_PAGE_SIZE.batchIds)
    fail('batch', `ids must hold 1 to ${MAX_PAGE_SIZE.batchIds} entries`, {
      count: Array.isArray(ids) ? ids.length : -1,
    });
  ids.forEach((id, i) => checkNonEmpty('batch', `ids[${i}]`, id));
  return { ids: [...ids] };
}

export interface EnrichParams {
  id: string;
  similarLimit?: number;
  reviewLimit?: number;
}

export function enrichBody(p: EnrichParams): EnrichParams {
  const body: EnrichParams = { id: checkNonEmpty('enrich', 'id', p.id) };
  if (p.similarLimit !== undefined)
    body.similarLimit = checkInt('enrich', 'similarLimit', p.similarLimit, 1, MAX_PAGE_SIZE.enrichLimit);
  if (p.reviewLimit !== undefined)
    body.reviewLimit = checkInt('enrich', 'reviewLimit', p.reviewLimit, 1, MAX_PAGE_SIZE.enrichLimit);
  return body;
}
