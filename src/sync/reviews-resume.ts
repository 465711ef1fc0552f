import type { ReviewsResume } from '../../jobs/types.ts';
import type { Review } from '../domain/items.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { SyncState } from '../warehouse/state-types.ts';

/** The walk marks a stopped review read leaves (jobs/fragrance-reviews.ts, reviewsWalk). */
const PREFIX = 'reviews:';

/**
 * Review reads a stop cut short in this cycle, to go on from where they stopped instead of
 * paying for their first pages again (issue 14 item 7). The read stored its pages as the
 * fragrance's reviews with the service's total, and a walk mark `reviews:<id>` with the pages
 * read, their size and the total. It is taken up again only when the warehouse still holds
 * exactly those pages (nothing replaced them since) under that total; the job then checks the
 * service's total has not moved either, else it reads from page 1.
 */
export async function reviewsResumes(
  warehouse: WarehouseHandle,
  state: SyncState,
  cycleStart: string,
): Promise<Map<string, ReviewsResume>> {
  const marks = state.walks.filter((w) => w.walk.startsWith(PREFIX) && !w.done && w.at >= cycleStart);
  const resumes = new Map<string, ReviewsResume>();
  if (marks.length === 0) return resumes;
  const rows = await warehouse.query<{ id: string; date: string; rating: number; text: string | null }>(
    `SELECT r.fragrance_id AS id, CAST(r.date AS VARCHAR) AS date, r.rating, r.text FROM reviews r
     WHERE r.fragrance_id IN (SELECT substr(walk, ${PREFIX.length + 1}) FROM sync_walks
                              WHERE walk LIKE '${PREFIX}%' AND NOT done)`,
  );
  const stored = new Map<string, Review[]>();
  for (const r of rows) {
    const list = stored.get(r.id) ?? [];
    list.push({ date: r.date, rating: Number(r.rating), text: r.text });
    stored.set(r.id, list);
  }
  for (const w of marks) {
    const id = w.walk.slice(PREFIX.length);
    const reviews = stored.get(id) ?? [];
    const size = w.pageSize ?? 0;
    if (size < 1 || reviews.length !== w.page * size || state.reviewTotals.get(id) !== w.total) continue;
    resumes.set(id, { page: w.page, size, total: w.total, reviews });
  }
  return resumes;
}
