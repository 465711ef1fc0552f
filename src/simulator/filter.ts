/**
 * The filtered, cursor-based form of GET /v1/fragrances, whose response the spec does not
 * show. This simulator answers `{ data, pagination, nextCursor }`: the page form's fields plus
 * an opaque cursor (null on the last page), so either way of paging works.
 */
import { ApiError, intParam, type HandlerInput } from './params.ts';
import type { FragranceRec } from './model.ts';
import { fold } from './prng.ts';

const FILTERS = ['q', 'brand', 'note', 'family', 'priceRange', 'cursor'] as const;
const PRICE_RANGES = ['BUDGET', 'MIDRANGE', 'PREMIUM'];

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(input: HandlerInput, cursor: string): number {
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new ApiError(400, input.bad400, "'cursor' is not a cursor this service issued.");
  return Number(m[1]);
}

export function filteredList(input: HandlerInput): unknown {
  const q = input.query;
  if (!FILTERS.some((k) => q.has(k))) return undefined;
  for (const k of FILTERS) {
    const v = q.get(k);
    if (v !== null && v.length < 1) throw new ApiError(400, input.bad400, `'${k}' must not be empty.`);
  }
  const text = q.get('q');
  if (text !== null && text.length > 100)
    throw new ApiError(400, input.bad400, "'q' must be at most 100 characters.");
  const price = q.get('priceRange');
  if (price !== null && !PRICE_RANGES.includes(price)) {
    throw new ApiError(400, input.bad400, `'priceRange' must be one of ${PRICE_RANGES.join(', ')}.`);
  }
  const page = intParam(input, 'page', 1, 1, 1_000_000_000);
  const limit = intParam(input, 'limit', 20, 1, 50);
  const cursor = q.get('cursor');
  const offset = cursor !== null ? decodeCursor(input, cursor) : (page - 1) * limit;

  const cat = input.cat;
  const tests: ((f: FragranceRec) => boolean)[] = [];
  if (text !== null) {
    const t = fold(text);
    tests.push((f) => fold(f.name).includes(t) || fold(cat.brandName(f)).includes(t));
  }
  const brand = q.get('brand');
  if (brand !== null) {
    const b = fold(brand);
    tests.push((f) => {
      const rec = cat.data.brands[f.brand];
      return rec !== undefined && (rec.slug === brand || fold(rec.name) === b);
    });
  }
  const note = q.get('note');
  if (note !== null) {
    const n = fold(note);
    const hit = new Set(
      cat.data.notes.filter((x) => x.slug === note || fold(x.name) === n).map((x) => x.idx),
    );
    tests.push(
      (f) =>
        f.top.some((i) => hit.has(i)) || f.middle.some((i) => hit.has(i)) || f.base.some((i) => hit.has(i)),
    );
  }
  const family = q.get('family');
  if (family !== null) {
    const fam = fold(family);
    const hit = new Set(cat.data.notes.filter((x) => fold(x.family) === fam).map((x) => x.idx));
    tests.push((f) => [...f.top, ...f.middle, ...f.base].some((i) => hit.has(i)));
  }
  if (price !== null) tests.push((f) => f.priceRange === price);

  const all = cat.fragranceList().filter((f) => tests.every((t) => t(f)));
  const data = all.slice(offset, offset + limit).map((f) => cat.summary(f));
  const next = offset + limit < all.length ? encodeCursor(offset + limit) : null;
  return {
    data,
    pagination: { page: Math.floor(offset / limit) + 1, limit, total: all.length },
    nextCursor: next,
  };
}
