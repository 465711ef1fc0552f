/**
 * One handler per endpoint of the price table. Handlers validate parameters against the
 * spec's bounds, then build the response from the catalogue's cached views in O(page).
 */
import type { SimEndpoint } from './price-table.ts';
import type { Catalogue } from './catalogue.ts';
import type { FragranceRec } from './model.ts';
import { round } from './prng.ts';
import { SEARCH_TYPES, search, trending, type SearchType } from './search.ts';
import { filteredList } from './filter.ts';
import { ApiError, intParam, type HandlerInput } from './params.ts';

type Handler = (input: HandlerInput) => unknown;

/**
 * page and limit as asked; with the variant's pageCap, pages no larger than that, and the
 * limit the response states is the one used (the spec: "the page size used").
 */
function page(input: HandlerInput, limitMax: number, pageMax = 1_000_000_000) {
  const p = intParam(input, 'page', 1, 1, pageMax);
  const asked = intParam(input, 'limit', 20, 1, limitMax);
  const cap = input.cat.data.variant.pageCap;
  const limit = cap === null ? asked : Math.min(asked, cap);
  return { page: p, limit, offset: (p - 1) * limit };
}

/** Listings as the edge reading serves them (some entries twice in a row), built once per list. */
const listings = new WeakMap<object, unknown[]>();
function listing<E>(input: HandlerInput, list: E[]): E[] {
  const edges = input.cat.edges;
  if (!edges.on) return list;
  let l = listings.get(list) as E[] | undefined;
  if (!l) listings.set(list, (l = edges.listing(list)));
  return l;
}

function notFound(what: string, key: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `No ${what} matches '${key}'.`);
}

function fragrance(input: HandlerInput, key = input.key): FragranceRec {
  const f = input.cat.find(key);
  if (!f) throw notFound('fragrance', key);
  return f;
}

function bodyObject(input: HandlerInput): Record<string, unknown> {
  const b = input.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b)) {
    throw new ApiError(400, input.bad400, 'The request body must be a JSON object.');
  }
  return b as Record<string, unknown>;
}

function bodyInt(
  input: HandlerInput,
  obj: Record<string, unknown>,
  name: string,
  fallback: number,
  max: number,
): number {
  const v = obj[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new ApiError(400, input.bad400, `'${name}' must be an integer from 1 to ${max}.`);
  }
  return v;
}

function reviewDigest(cat: Catalogue, f: FragranceRec) {
  const total = cat.reviewTotal(f);
  const all = cat.reviews(f, 0, total);
  const avg = total === 0 ? null : round(all.reduce((s, r) => s + r.rating, 0) / total, 2);
  const withText = all.filter((r) => r.text !== null);
  return {
    fragranceId: f.id,
    reviewCount: total,
    averageRating: avg,
    summary:
      total === 0
        ? 'No community reviews yet.'
        : `${total} reviews, ${withText.length} with text; the community rates it ${avg} on average.`,
    highlights: withText.slice(0, 3).map((r) => r.text),
  };
}

function compare(input: HandlerInput) {
  const a = input.query.get('a') ?? '';
  const b = input.query.get('b') ?? '';
  if (a.length < 1 || b.length < 1) throw new ApiError(400, input.bad400, "'a' and 'b' are required.");
  if (a === b) throw new ApiError(400, input.bad400, "'a' and 'b' must differ.");
  const fa = fragrance(input, a);
  const fb = fragrance(input, b);
  if (fa === fb) throw new ApiError(400, input.bad400, "'a' and 'b' name the same fragrance.");
  const pa = input.cat.profile(fa);
  const pb = input.cat.profile(fb);
  const notesOf = (p: typeof pa) => new Set([...p.notes.top, ...p.notes.middle, ...p.notes.base]);
  const na = notesOf(pa);
  const nb = notesOf(pb);
  return {
    a: input.cat.summary(fa),
    b: input.cat.summary(fb),
    sharedNotes: [...na].filter((n) => nb.has(n)),
    distinctNotes: { a: [...na].filter((n) => !nb.has(n)), b: [...nb].filter((n) => !na.has(n)) },
    scores: { a: pa.score, b: pb.score },
    synthesis: `${pa.name} and ${pb.name} share ${[...na].filter((n) => nb.has(n)).length} notes.`,
  };
}

export const HANDLERS: Record<SimEndpoint, Handler> = {
  search(input) {
    const q = input.query.get('q') ?? '';
    if (q.trim().length < 2) throw new ApiError(400, 'INVALID_QUERY', "'q' must be at least 2 characters.");
    const type = input.query.get('type');
    if (type !== null && !(SEARCH_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(400, input.bad400, `'type' must be one of ${SEARCH_TYPES.join(', ')}.`);
    }
    const limit = intParam(input, 'limit', 20, 1, 25);
    const results: unknown[] = search(input.cat, q, (type ?? undefined) as SearchType | undefined, limit);
    // The edge reading: results of a type the spec does not list, and one without a type.
    if (input.cat.edges.on && type === null && limit >= 3)
      results.splice(limit - 2, 2, { type: 'podcast', slug: 'scent-talk', title: 'Scent talk' }, { name: q });
    return { results };
  },
  trending: (input) => trending(input.cat),
  listCharts: (input) => ({ charts: input.cat.chartList() }),
  getChart(input) {
    const c = input.cat.chart(input.key);
    if (!c) throw notFound('chart', input.key);
    return c;
  },
  listFragrances(input) {
    const filtered = filteredList(input);
    if (filtered) return filtered;
    const { page: p, limit, offset } = page(input, 50);
    const list = listing(input, input.cat.fragranceList());
    return {
      data: list.slice(offset, offset + limit).map((f) => input.cat.summary(f)),
      pagination: { page: p, limit, total: list.length },
    };
  },
  getFragrance: (input) => input.cat.profile(fragrance(input)),
  getReviews(input) {
    const f = fragrance(input);
    const { page: p, limit, offset } = page(input, 50, 10_000);
    return {
      fragranceId: f.id,
      reviews: input.cat.reviews(f, offset, limit),
      pagination: { page: p, limit, total: input.cat.reviewTotal(f) },
    };
  },
  getSimilar(input) {
    const f = fragrance(input);
    const limit = intParam(input, 'limit', 12, 1, 50);
    return { id: f.id, similar: input.cat.similar(f).slice(0, limit) };
  },
  getWearingStats: (input) => input.cat.wearing(fragrance(input)),
  compare,
  getReviewDigest: (input) => reviewDigest(input.cat, fragrance(input)),
  batch(input) {
    const ids = bodyObject(input).ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'string')) {
      throw new ApiError(400, input.bad400, "'ids' must be a non-empty array of strings.");
    }
    if (ids.length > 50)
      throw new ApiError(422, 'TOO_MANY_IDS', `At most 50 ids per batch; got ${ids.length}.`);
    const found = (ids as string[]).map((id) => input.cat.find(id)).filter((f) => f !== undefined);
    return { fragrances: found.map((f) => input.cat.summary(f)) };
  },
  enrich(input) {
    const body = bodyObject(input);
    if (typeof body.id !== 'string' || body.id.length === 0) {
      throw new ApiError(400, input.bad400, "'id' must be a non-empty string.");
    }
    const similarLimit = bodyInt(input, body, 'similarLimit', 10, 20);
    const reviewLimit = bodyInt(input, body, 'reviewLimit', 10, 20);
    const f = fragrance(input, body.id);
    const p = input.cat.profile(f);
    return {
      id: p.id,
      name: p.name,
      brand: p.brand,
      notes: p.notes,
      accords: p.accords,
      reviews: input.cat.reviews(f, 0, reviewLimit),
      similar: input.cat.similar(f).slice(0, similarLimit),
    };
  },
  getBrand(input) {
    const b = input.cat.brand(input.key);
    if (!b) throw notFound('brand', input.key);
    return input.cat.brandView(b);
  },
  getBrandFragrances(input) {
    const b = input.cat.brand(input.key);
    if (!b) throw notFound('brand', input.key);
    const { page: p, limit, offset } = page(input, 50);
    const all = listing(input, input.cat.brandCatalogue(b));
    return {
      brand: b.slug,
      data: all.slice(offset, offset + limit),
      pagination: { page: p, limit, total: all.length },
    };
  },
  getPerfumer(input) {
    const p = input.cat.perfumer(input.key);
    if (!p) throw notFound('perfumer', input.key);
    return input.cat.perfumerView(p);
  },
  listNotes(input) {
    const { page: p, limit, offset } = page(input, 50);
    const all = input.cat.noteList();
    return { data: all.slice(offset, offset + limit), pagination: { page: p, limit, total: all.length } };
  },
  getNote(input) {
    const n = input.cat.note(input.key);
    if (!n) throw notFound('note', input.key);
    return input.cat.noteView(n);
  },
  listAccords(input) {
    const { page: p, limit, offset } = page(input, 50);
    const all = input.cat.accordList();
    return { data: all.slice(offset, offset + limit), pagination: { page: p, limit, total: all.length } };
  },
};
