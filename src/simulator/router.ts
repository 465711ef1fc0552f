/**
 * Maps a /v1 path to an endpoint of the price table. Fragrance ids may be two-segment slugs
 * (`brand/fragrance`), so the fragrance routes take every segment between `/v1/fragrances/`
 * and an optional trailing sub-resource as the id; each segment is percent-decoded on its own.
 */
import type { SimEndpoint } from './price-table.ts';

export interface RouteMatch {
  name: SimEndpoint;
  /** The fragrance id or the slug of the addressed resource, decoded. */
  key: string;
}

export type RouteResult = RouteMatch | { error: 'not-found' | 'bad-encoding' | 'method'; name?: SimEndpoint };

const FRAGRANCE_SUBS: Record<string, SimEndpoint> = {
  reviews: 'getReviews',
  similar: 'getSimilar',
  'wearing-stats': 'getWearingStats',
  'review-digest': 'getReviewDigest',
};

function decode(segments: string[]): string[] | undefined {
  try {
    return segments.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function check(method: string, name: SimEndpoint, key = ''): RouteResult {
  const post = name === 'batch' || name === 'enrich';
  if ((method === 'POST') !== post) return { error: 'method', name };
  return { name, key };
}

/** `path` is the raw (still encoded) path after `/v1/`, without the query string. */
export function route(method: string, path: string): RouteResult {
  const raw = path.split('/');
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  const segs = decode(raw);
  if (!segs) return { error: 'bad-encoding' };
  const [head, ...rest] = segs;
  const one = rest.length === 1 ? (rest[0] as string) : undefined;
  switch (head) {
    case 'search':
      return rest.length === 0 ? check(method, 'search') : { error: 'not-found' };
    case 'trending':
      return rest.length === 0 ? check(method, 'trending') : { error: 'not-found' };
    case 'charts':
      if (rest.length === 0) return check(method, 'listCharts');
      return one !== undefined ? check(method, 'getChart', one) : { error: 'not-found' };
    case 'notes':
      if (rest.length === 0) return check(method, 'listNotes');
      return one !== undefined ? check(method, 'getNote', one) : { error: 'not-found' };
    case 'accords':
      return rest.length === 0 ? check(method, 'listAccords') : { error: 'not-found' };
    case 'perfumers':
      return one !== undefined ? check(method, 'getPerfumer', one) : { error: 'not-found' };
    case 'brands':
      if (one !== undefined) return check(method, 'getBrand', one);
      if (rest.length === 2 && rest[1] === 'fragrances') return check(method, 'getBrandFragrances', rest[0]);
      return { error: 'not-found' };
    case 'fragrances':
      return fragranceRoute(method, rest);
    default:
      return { error: 'not-found' };
  }
}

function fragranceRoute(method: string, rest: string[]): RouteResult {
  if (rest.length === 0) return check(method, 'listFragrances');
  if (rest.length === 1) {
    if (rest[0] === 'compare') return check(method, 'compare');
    if (rest[0] === 'batch') return check(method, 'batch');
    if (rest[0] === 'enrich') return check(method, 'enrich');
  }
  if (rest.some((s) => s === '')) return { error: 'not-found' };
  const last = rest[rest.length - 1] as string;
  const sub = rest.length >= 2 ? FRAGRANCE_SUBS[last] : undefined;
  // The generator never issues a fragrance slug equal to a sub-resource word, so
  // `brand/reviews` is never ambiguous.
  if (sub) return check(method, sub, rest.slice(0, -1).join('/'));
  return check(method, 'getFragrance', rest.join('/'));
}
