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
// As the schemas: no range (a stated one is flagged, not refused), but finite (1e400 parses to Infinity).
const num = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
const int = (x: unknown): boolean => Number.isSafeInteger(x);

const pagination = (p: unknown) => exact(p, 3) && int(p.page) && int(p.limit) && int(p.total);
const summary = (f: unknown) => exact(f, 3) && str(f.id) && str(f.name) && str(f.brand);
const labelled = (e: unknown) => exact(e, 2) && str(e.label) && num(e.score);
const similarEntry = (e: unknown) =>
  exact(e, 4) && str(e.id) && str(e.name) && str(e.brand) && num(e.similarityScore);
const review = (r: unknown) =>
  exact(r, 3) && num(r.rating) && (r.text === null || str(r.text)) && str(r.date) && isCalendarDay(r.date);
const accord = (a: unknown) => exact(a, 2) && str(a.name) && num(a.strength);

function profile(p: unknown): boolean {
  if (!exact(p, 10)) return false;
  const n = p.notes;
  return (
    str(p.id) &&
    str(p.name) &&
    str(p.brand) &&
    str(p.brandSlug) &&
    str(p.perfumer) &&
    str(p.perfumerSlug) &&
    int(p.year) &&
    num(p.score) &&
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
    str(w.fragranceId) &&
    exact(s, 4) &&
    num(s.spring) &&
    num(s.summer) &&
    num(s.fall) &&
    num(s.winter) &&
    every(w.moods, labelled) &&
    every(w.occasions, labelled)
  );
}

const FAST: Partial<Record<EndpointName, (body: unknown) => boolean>> = {
  getFragrance: profile,
  getWearingStats: wearing,
  getSimilar: (b) => exact(b, 2) && str(b.id) && every(b.similar, similarEntry),
  getReviews: (b) =>
    exact(b, 3) && str(b.fragranceId) && every(b.reviews, review) && pagination(b.pagination),
  listFragrances: (b) => exact(b, 2) && every(b.data, summary) && pagination(b.pagination),
};

/** True when `body` is certainly what the endpoint's zod schema returns for it, as it is. */
export function surelyExact(endpoint: EndpointName, body: unknown): boolean {
  const check = FAST[endpoint];
  return check !== undefined && check(body);
}
