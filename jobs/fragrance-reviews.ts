import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { reviewColumns, type Review, type ReviewsItem } from '../src/domain/items.ts';
import { fetched, guarded, stopsTheRun } from './guard.ts';
import { job, PRIORITY } from './job-id.ts';
import { pageCount, pageSizeOf } from './paging.ts';
import {
  PartialResultError,
  type JobContext,
  type JobPayloads,
  type Processor,
  type ReviewsResume,
} from './types.ts';

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

async function readReviews(ctx: JobContext, p: JobPayloads['fragranceReviews']): Promise<ReviewsItem | null> {
  const { mode, newest } = ctx.settings.reviews;
  const cap = mode === 'newest' ? newest : null;
  const pageLimit = cap !== null ? Math.min(PAGE_SIZE, Math.max(1, cap)) : PAGE_SIZE;

  // Incremental: the warehouse holds exactly knownTotal reviews; new ones are at the top of page 1.
  if (cap === null && !p.resume && p.knownTotal !== null && p.knownCount === p.knownTotal) {
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
    // The pages a stopped read stored are used once: if the list moved since, read it all.
    const resume = attempt === 0 && cap === null ? p.resume : undefined;
    const result =
      (attempt === 0 && !resume ? await readSideBySide(ctx, p, pageLimit, cap) : null) ??
      (await readAll(ctx, p, pageLimit, cap, resume));
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
 * Page 1, then every other page it implies at once: only as one consistent read when every
 * page came back at page 1's total and size, since the overlap rule below needs pages read in
 * order. Null otherwise (reviews added meanwhile): the caller reads again in order, paying
 * those pages twice, which happens only while the fragrance gets reviews. Stopped part-way,
 * it keeps the pages that came back before the first that did not (stoppedAt).
 */
async function readSideBySide(
  ctx: JobContext,
  p: JobPayloads['fragranceReviews'],
  limit: number,
  cap: number | null,
): Promise<{ total: number; reviews: Review[] } | null> {
  const first = await page(ctx, p.id, 1, limit);
  const wanted = cap === null ? first.total : Math.min(cap, first.total);
  const pages = first.reviews.length === 0 ? 1 : pageCount(wanted, first.size);
  // Every request settles before anything is decided: each paid call reaches the outcome.
  const settled = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
      page(ctx, p.id, i + 2, limit).then(
        (pg) => ({ pg }),
        (err: unknown) => ({ err }),
      ),
    ),
  );
  const failed = settled.findIndex((s) => 'err' in s);
  const read = [
    first,
    ...settled.slice(0, failed < 0 ? undefined : failed).map((s) => (s as { pg: Page }).pg),
  ];
  const moved = read.some((pg) => pg.total !== first.total || pg.size !== first.size);
  if (failed >= 0) {
    const err = (settled[failed] as { err: unknown }).err;
    if (cap !== null || moved) throw err;
    const reviews = read.flatMap((pg) => pg.reviews);
    throw stoppedAt(err, p, { page: read.length, size: first.size, total: first.total, reviews });
  }
  if (moved) return null;
  const reviews = read.flatMap((pg) => pg.reviews);
  if (cap !== null) return { total: first.total, reviews: reviews.slice(0, cap) };
  return reviews.length === first.total ? { total: first.total, reviews } : null;
}

/**
 * One consistent read of every page (or the newest `cap`), or null when pages moved
 * unexplainably. With `resume`, pages 1..resume.page are the stored ones, valid while the
 * total and the page size have not changed. Stopped part-way (a 402, a budget, the quota),
 * it keeps what it bought (stoppedAt).
 */
async function readAll(
  ctx: JobContext,
  p: JobPayloads['fragranceReviews'],
  limit: number,
  cap: number | null,
  resume?: ReviewsResume,
): Promise<{ total: number; reviews: Review[] } | null> {
  const id = p.id;
  const collected: Review[] = resume ? [...resume.reviews] : [];
  let startTotal = resume ? resume.total : -1;
  let prevTotal = startTotal;
  let size = resume?.size ?? 0;
  const first = resume ? resume.page + 1 : 1;
  for (let n = first; ; n++) {
    let pg: Page;
    try {
      pg = await page(ctx, id, n, limit);
    } catch (err) {
      const done = n - 1;
      throw cap === null && done > 0 && prevTotal === startTotal
        ? stoppedAt(err, p, { page: done, size, total: prevTotal, reviews: collected })
        : err;
    }
    let items = pg.reviews;
    if (n === first && resume && (pg.total !== resume.total || pg.size !== resume.size)) return null;
    if (n === 1) {
      startTotal = pg.total;
      size = pg.size;
    } else {
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

/** The walk mark of a fragrance's review read stopped part-way (Frontier reads it back). */
export const reviewsWalk = (id: string): string => `reviews:${id}`;

/**
 * A read stopped after `at.page` pages: their reviews are stored as the fragrance's (its total
 * stays the service's, so the warehouse never takes them for complete) with a walk mark that
 * says how far it got; the next read goes on from there (Frontier, payload.resume).
 */
function stoppedAt(err: unknown, p: JobPayloads['fragranceReviews'], at: ReviewsResume): unknown {
  if (!stopsTheRun(err)) return err;
  const id = p.id;
  const item: ReviewsItem = {
    kind: 'reviews',
    fragranceId: id,
    mode: 'replace',
    total: at.total,
    ...reviewColumns(at.reviews),
  };
  const mark = { kind: 'walk' as const, walk: reviewsWalk(id), page: at.page, total: at.total, done: false };
  const partial = { items: [item], progress: [{ ...mark, pageSize: at.size }], follow: [] };
  // Waiting in the same run (a quota pause), the job goes on from there too.
  return new PartialResultError(err, partial, job('fragranceReviews', { ...p, resume: at }, PRIORITY.detail));
}

/** One page of a fragrance's reviews as the walk needs it. */
interface Page {
  total: number;
  size: number;
  reviews: Review[];
}

async function page(ctx: JobContext, id: string, n: number, limit: number): Promise<Page> {
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
