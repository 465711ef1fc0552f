import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { reviewColumns, type Review, type ReviewsItem } from '../src/domain/items.ts';
import { fetched, guarded } from './guard.ts';
import { pageCount, pageSizeOf, readPages } from './paging.ts';
import type { JobContext, Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.getReviews;
/** Re-reads of one fragrance's reviews when pages moved in a way the overlap rule cannot explain. */
const MAX_REREADS = 3;

/**
 * Reviews have no id and arrive newest first while new ones are added at the top, so items
 * shift down between page requests. The rule (docs/reviews.md):
 * - every page carries pagination.total; if it grew by d since the previous page, the first
 *   d items of this page are the previous page's last d: check that they are, and drop them;
 * - the d reviews added meanwhile sit at the top of page 1: when the total at the end exceeds
 *   the total at the start, read page 1 again and take them (checking the rest still lines up);
 * - if the total shrank, or an overlap does not match, read the fragrance again from page 1.
 * Never deduplicate by value: two identical rating-only reviews on one day are two reviews.
 */
export const fragranceReviews: Processor<'fragranceReviews'> = (ctx, payload) =>
  guarded('fragrance', payload.id, 'reviews', async () => {
    const item = await readReviews(ctx, payload);
    return { items: item ? [item] : [], progress: [fetched('fragrance', payload.id, 'reviews')], follow: [] };
  });

async function readReviews(
  ctx: JobContext,
  p: { id: string; knownTotal: number | null; knownCount: number | null },
): Promise<ReviewsItem | null> {
  const { mode, newest } = ctx.settings.reviews;
  const cap = mode === 'newest' ? newest : null;
  const pageLimit = cap !== null ? Math.min(PAGE_SIZE, Math.max(1, cap)) : PAGE_SIZE;

  // Incremental: the warehouse holds exactly knownTotal reviews; new ones are at the top of page 1.
  if (cap === null && p.knownTotal !== null && p.knownCount === p.knownTotal) {
    const first = await page(ctx, p.id, 1, pageLimit);
    const added = first.total - p.knownTotal;
    if (added === 0) return null;
    if (added > 0 && added <= first.reviews.length) {
      return {
        kind: 'reviews',
        fragranceId: p.id,
        mode: 'prepend',
        total: first.total,
        ...reviewColumns(first.reviews.slice(0, added)),
      };
    }
    // More new reviews than one page, or fewer reviews than before: read them all.
  }

  for (let attempt = 0; attempt < MAX_REREADS; attempt++) {
    // First side by side; pages that moved meanwhile are read again one after the other.
    const result =
      (attempt === 0 ? await readSideBySide(ctx, p.id, pageLimit, cap) : null) ??
      (await readAll(ctx, p.id, pageLimit, cap));
    if (result)
      return {
        kind: 'reviews',
        fragranceId: p.id,
        mode: 'replace',
        total: result.total,
        ...reviewColumns(result.reviews),
      };
    ctx.log.info({ id: p.id, attempt }, 'review pages moved inconsistently, reading again');
  }
  throw new Error(`reviews of ${p.id} kept moving during ${MAX_REREADS} reads`);
}

/**
 * Page 1, then every other page it implies at once (readPages): only as one consistent read
 * when every page came back at page 1's total and size, since the overlap rule below needs
 * pages read in order. Null otherwise (reviews added meanwhile): the caller reads again in
 * order, paying those pages twice, which happens only while the fragrance gets reviews.
 */
async function readSideBySide(
  ctx: JobContext,
  id: string,
  limit: number,
  cap: number | null,
): Promise<{ total: number; reviews: Review[] } | null> {
  const first = await page(ctx, id, 1, limit);
  const wanted = cap === null ? first.total : Math.min(cap, first.total);
  const pages = first.reviews.length === 0 ? 1 : pageCount(wanted, first.size);
  const rest = await readPages(2, pages, (n) => page(ctx, id, n, limit));
  if (rest.some((pg) => pg.total !== first.total || pg.size !== first.size)) return null;
  const reviews = [first, ...rest].flatMap((pg) => pg.reviews);
  if (cap !== null) return { total: first.total, reviews: reviews.slice(0, cap) };
  return reviews.length === first.total ? { total: first.total, reviews } : null;
}

/** One consistent read of every page (or the newest `cap`), or null when pages moved unexplainably. */
async function readAll(
  ctx: JobContext,
  id: string,
  limit: number,
  cap: number | null,
): Promise<{ total: number; reviews: Review[] } | null> {
  const collected: Review[] = [];
  let startTotal = -1;
  let prevTotal = -1;
  for (let n = 1; ; n++) {
    const pg = await page(ctx, id, n, limit);
    let items = pg.reviews;
    if (n === 1) startTotal = pg.total;
    else {
      const d = pg.total - prevTotal;
      if (d < 0 || d > items.length || d > collected.length) return null;
      if (!sameReviews(items.slice(0, d), collected.slice(collected.length - d))) return null;
      items = items.slice(d);
    }
    prevTotal = pg.total;
    collected.push(...items);
    if (cap !== null && collected.length >= cap) return { total: pg.total, reviews: collected.slice(0, cap) };
    // Page n holds reviews up to n times the size the service used (not the size asked).
    if (n * pg.size >= pg.total || pg.reviews.length === 0) break;
  }
  const grown = prevTotal - startTotal;
  if (grown > 0) {
    // Reviews added at the top while we read: take them from a fresh page 1.
    const top = await page(ctx, id, 1, limit);
    if (top.total !== prevTotal || grown > top.reviews.length) return null;
    if (!sameReviews(top.reviews.slice(grown), collected.slice(0, top.reviews.length - grown))) return null;
    collected.unshift(...top.reviews.slice(0, grown));
  }
  if (cap === null && collected.length !== prevTotal) return null;
  return { total: prevTotal, reviews: collected };
}

async function page(
  ctx: JobContext,
  id: string,
  n: number,
  limit: number,
): Promise<{ total: number; size: number; reviews: Review[] }> {
  const res = await ctx.client.getReviews(id, { page: n, limit }, ctx.signal);
  return {
    total: res.data.pagination.total,
    size: pageSizeOf(res.data.pagination, res.data.reviews.length).size,
    reviews: res.data.reviews, // validated: exactly { date, rating, text } each, no copy needed
  };
}

function sameReviews(a: Review[], b: Review[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((r, i) => r.date === b[i]?.date && r.rating === b[i]?.rating && r.text === b[i]?.text);
}
