/**
 * Hand-written checks for the responses a sync reads by the ten thousand (profiles, similar
 * lists, wearing stats, review pages, list pages). zod walks every entry through its generic
 * machinery and copies every object; these loops only look, and accept only a value that is
 * already exactly what zod would return: every field of the schema present and in range, and
 * no other field (zod would strip it, so the value itself would differ from zod's copy). They
 * may refuse more than the schemas in ./schemas.ts (the caller then asks zod, which decides
 * and words the error), never less. test/api/fast-check.test.ts holds them to that.
 */
import { isCalendarDay } from '../util/calendar-day.ts';
import { every, isPlainObject, isStr, type Obj } from '../util/value-checks.ts';
import type { EndpointName } from '../domain/endpoints.ts';

/** A plain object with exactly `n` own keys (the caller checks each of them). */
function exact(x: unknown, n: number): x is Obj {
  if (!isPlainObject(x)) return false;
  let keys = 0;
  for (const k in x) if (Object.hasOwn(x, k)) keys++;
  return keys === n;
}

const str = isStr;
const id = (x: unknown): x is string => typeof x === 'string' && x.length > 0;
const num = (x: unknown, min: number, max: number): boolean => typeof x === 'number' && x >= min && x <= max;
const int = (x: unknown, min: number): boolean => Number.isSafeInteger(x) && (x as number) >= min;

const pagination = (p: unknown) => exact(p, 3) && int(p.page, 1) && int(p.limit, 1) && int(p.total, 0);
const summary = (f: unknown) => exact(f, 3) && id(f.id) && str(f.name) && str(f.brand);
const labelled = (e: unknown) => exact(e, 2) && str(e.label) && num(e.score, 0, 1);
const similarEntry = (e: unknown) =>
  exact(e, 4) && id(e.id) && str(e.name) && str(e.brand) && num(e.similarityScore, 0, 1);
const review = (r: unknown) =>
  exact(r, 3) &&
  num(r.rating, 0.5, 5) &&
  (r.text === null || str(r.text)) &&
  str(r.date) &&
  isCalendarDay(r.date);
const accord = (a: unknown) => exact(a, 2) && str(a.name) && num(a.strength, 0, 1);

function profile(p: unknown): boolean {
  if (!exact(p, 10)) return false;
  const n = p.notes;
  return (
    id(p.id) &&
    str(p.name) &&
    str(p.brand) &&
    id(p.brandSlug) &&
    str(p.perfumer) &&
    id(p.perfumerSlug) &&
    int(p.year, Number.MIN_SAFE_INTEGER) &&
    num(p.score, 0, 5) &&
    exact(n, 3) &&
    every(n.top, str) &&
    every(n.middle, str) &&
    every(n.base, str) &&
    every(p.accords, accord)
  );
}

function wearing(w: unknown): boolean {
  if (!exact(w, 4)) return false;
  const s = w.seasons;
  return (
    id(w.fragranceId) &&
    exact(s, 4) &&
    num(s.spring, 0, 1) &&
    num(s.summer, 0, 1) &&
    num(s.fall, 0, 1) &&
    num(s.winter, 0, 1) &&
    every(w.moods, labelled) &&
    every(w.occasions, labelled)
  );
}

const FAST: Partial<Record<EndpointName, (body: unknown) => boolean>> = {
  getFragrance: profile,
  getWearingStats: wearing,
  getSimilar: (b) => exact(b, 2) && id(b.id) && every(b.similar, similarEntry),
  getReviews: (b) => exact(b, 3) && id(b.fragranceId) && every(b.reviews, review) && pagination(b.pagination),
  listFragrances: (b) => exact(b, 2) && every(b.data, summary) && pagination(b.pagination),
};

/** True when `body` is certainly what the endpoint's zod schema returns for it, as it is. */
export function surelyExact(endpoint: EndpointName, body: unknown): boolean {
  const check = FAST[endpoint];
  return check !== undefined && check(body);
}
