import { RequestInvalidError } from '../errors.ts';
import { ENDPOINTS, MAX_PAGE_SIZE, type EndpointName } from '../domain/endpoints.ts';

/**
 * Parameter checks from the spec's parameter tables and "Parameter bounds", applied before
 * anything is sent: a request the service would refuse with a 400 still costs a quota unit
 * and maybe cents. Only what the spec states is checked (BOUNDS: the notes, accords and brand
 * catalogue listings state a maximum limit and nothing else). Defaults the spec declares are
 * sent explicitly, so every request says what it asks for.
 */

export const SEARCH_TYPES = ['fragrance', 'note', 'brand', 'perfumer', 'collection'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const MAX_LIST_QUERY_CHARS = 100;
export const MIN_SEARCH_QUERY_CHARS = 2;

/** [min, max] of each integer parameter as the spec states them; null: no bound stated. */
type Bounds = readonly [number | null, number | null];
const NO_BOUND: Bounds = [null, null];

export const BOUNDS = {
  search: { limit: [1, MAX_PAGE_SIZE.search] },
  listFragrances: { page: [1, null], limit: [1, MAX_PAGE_SIZE.listFragrances] },
  getReviews: { page: [1, 10_000], limit: [1, MAX_PAGE_SIZE.getReviews] },
  getSimilar: { limit: [1, MAX_PAGE_SIZE.getSimilar] },
  enrich: { similarLimit: [1, MAX_PAGE_SIZE.enrichLimit], reviewLimit: [1, MAX_PAGE_SIZE.enrichLimit] },
  listNotes: { page: NO_BOUND, limit: [null, MAX_PAGE_SIZE.listNotes] },
  listAccords: { page: NO_BOUND, limit: [null, MAX_PAGE_SIZE.listAccords] },
  getBrandFragrances: { page: NO_BOUND, limit: [null, MAX_PAGE_SIZE.getBrandFragrances] },
} as const satisfies Partial<Record<EndpointName, Record<string, Bounds>>>;

export const MAX_REVIEW_PAGE = BOUNDS.getReviews.page[1];

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

/** An integer within the stated bounds (a safe integer where the spec states none). */
export function checkInt(endpoint: EndpointName, name: string, value: unknown, [min, max]: Bounds): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    fail(endpoint, `${name} must be an integer, got ${String(value)}`);
  if ((min !== null && value < min) || (max !== null && value > max)) {
    const range =
      min === null ? `at most ${max}` : max === null ? `at least ${min}` : `between ${min} and ${max}`;
    fail(endpoint, `${name} must be ${range}, got ${value}`, { [name]: value });
  }
  return value;
}

export function checkNonEmpty(endpoint: EndpointName, name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') fail(endpoint, `${name} must be a non-empty string`);
  return value;
}

function checkString(endpoint: EndpointName, name: string, value: unknown): string {
  if (typeof value !== 'string') fail(endpoint, `${name} must be a string`);
  return value;
}

/** page and limit within the endpoint's stated bounds (BOUNDS). */
export function pageQuery(
  endpoint: keyof typeof DEFAULT_LIMIT & keyof typeof BOUNDS,
  p: PageParams = {},
): Query {
  const bounds: { page?: Bounds; limit: Bounds } = BOUNDS[endpoint];
  const query: Query = {};
  if (bounds.page) query.page = String(checkInt(endpoint, 'page', p.page ?? 1, bounds.page));
  query.limit = String(checkInt(endpoint, 'limit', p.limit ?? DEFAULT_LIMIT[endpoint], bounds.limit));
  return query;
}

export interface SearchParams {
  q: string;
  type?: SearchType;
  limit?: number;
}

export function searchQuery(p: SearchParams): Query {
  // Characters are code points; blanks count (the spec states a length, nothing about blanks).
  if (typeof p.q !== 'string' || [...p.q].length < MIN_SEARCH_QUERY_CHARS)
    fail('search', `q must have at least ${MIN_SEARCH_QUERY_CHARS} characters`);
  const limit = checkInt('search', 'limit', p.limit ?? DEFAULT_LIMIT.search, BOUNDS.search.limit);
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
  const limit = checkInt('getSimilar', 'limit', p.limit ?? DEFAULT_LIMIT.getSimilar, BOUNDS.getSimilar.limit);
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
  ids.forEach((id, i) => checkString('batch', `ids[${i}]`, id));
  return { ids: [...ids] };
}

export interface EnrichParams {
  id: string;
  similarLimit?: number;
  reviewLimit?: number;
}

export function enrichBody(p: EnrichParams): EnrichParams {
  const body: EnrichParams = { id: checkString('enrich', 'id', p.id) };
  if (p.similarLimit !== undefined)
    body.similarLimit = checkInt('enrich', 'similarLimit', p.similarLimit, BOUNDS.enrich.similarLimit);
  if (p.reviewLimit !== undefined)
    body.reviewLimit = checkInt('enrich', 'reviewLimit', p.reviewLimit, BOUNDS.enrich.reviewLimit);
  return body;
}
