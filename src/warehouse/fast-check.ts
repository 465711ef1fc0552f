/**
 * Hand-written checks for the item kinds a sync loads by the hundred thousand (reviews,
 * similar lists, wearing stats, profiles, summaries, the call ledger). zod walks every
 * review and list entry through its generic machinery and copies each object; these loops
 * only look. They may refuse more than the zod schemas in validate.ts (the caller then asks
 * zod, which decides and words the error), never less: `true` means zod accepts it too.
 */
import { isCalendarDay } from '../util/calendar-day.ts';
import { every, isPlainObject, isStr, type Obj } from '../util/value-checks.ts';

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isInt = (x: unknown): x is number => Number.isSafeInteger(x);
/** Bound for an INTEGER column: 32 bits. */
const isInt32 = (x: unknown): x is number => isInt(x) && x >= -(2 ** 31) && x < 2 ** 31;
const isObj = isPlainObject;
const everyStr = (list: unknown) => every(list, isStr);
const everyObj = (list: unknown, ok: (e: Obj) => boolean) => every(list, (e) => isPlainObject(e) && ok(e));

const labelled = (e: Obj) => isStr(e.label) && isNum(e.score);
const isDay = (x: unknown) => isStr(x) && isCalendarDay(x);
const isText = (x: unknown) => x === null || isStr(x);

/** Columns of one list (SimilarItem, ReviewsItem): each an array, all of one length. */
function columns(...cols: [unknown, (e: unknown) => boolean][]): boolean {
  const n = Array.isArray(cols[0]![0]) ? cols[0]![0].length : -1;
  return cols.every(([col, ok]) => Array.isArray(col) && col.length === n && every(col, ok));
}
const accord = (e: Obj) => isStr(e.name) && isNum(e.strength);

function profile(r: Obj): boolean {
  const n = r.notes;
  return (
    isStr(r.id) &&
    isStr(r.name) &&
    isStr(r.brand) &&
    isStr(r.brandSlug) &&
    isStr(r.perfumer) &&
    isStr(r.perfumerSlug) &&
    isInt32(r.year) &&
    isNum(r.score) &&
    isObj(n) &&
    everyStr(n.top) &&
    everyStr(n.middle) &&
    everyStr(n.base) &&
    everyObj(r.accords, accord)
  );
}

function wearing(r: Obj): boolean {
  const s = r.seasons;
  return (
    isStr(r.fragranceId) &&
    isObj(s) &&
    isNum(s.spring) &&
    isNum(s.summer) &&
    isNum(s.fall) &&
    isNum(s.winter) &&
    everyObj(r.moods, labelled) &&
    everyObj(r.occasions, labelled)
  );
}

function apiCall(r: Obj): boolean {
  return (
    isStr(r.at) &&
    !Number.isNaN(Date.parse(r.at)) &&
    (r.method === 'GET' || r.method === 'POST') &&
    isStr(r.endpoint) &&
    isInt(r.status) &&
    isInt(r.costCents) &&
    (r.quotaRemaining === null || isInt(r.quotaRemaining))
  );
}

/** True when the item is certainly valid; false means "ask zod" (other kinds always do). */
export function surelyValid(raw: unknown): boolean {
  if (!isObj(raw)) return false;
  switch (raw.kind) {
    case 'reviews':
      return (
        isStr(raw.fragranceId) &&
        (raw.mode === 'replace' || raw.mode === 'prepend') &&
        isInt32(raw.total) &&
        raw.total >= 0 &&
        columns([raw.dates, isDay], [raw.ratings, isNum], [raw.texts, isText])
      );
    case 'similar':
      return isStr(raw.fragranceId) && columns([raw.ids, isStr], [raw.scores, isNum]);
    case 'wearing':
      return wearing(raw);
    case 'fragrance':
      return profile(raw);
    case 'fragranceSummary':
      return isStr(raw.id) && isStr(raw.name) && isStr(raw.brand);
    case 'apiCall':
      return apiCall(raw);
    default:
      return false;
  }
}
