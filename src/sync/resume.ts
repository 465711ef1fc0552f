import type { JobPayloads, ReviewsResume, WalkResume } from '../../jobs/types.ts';
import type { Review } from '../domain/items.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import type { SyncState, WalkState } from '../warehouse/state-types.ts';

/** The walk marks a stopped review read leaves (jobs/fragrance-reviews.ts, reviewsWalk). */
const PREFIX = 'reviews:';

/**
 * Reads a stop cut short in this cycle, to go on from where they stopped instead of paying
 * for their first pages again (issue 14: no page bought twice): review reads per fragrance,
 * and walks one job reads whole (accords, a brand's catalogue: `accords`, `brand:<slug>`).
 */
export class Resumes {
  constructor(
    private readonly reviews: Map<string, ReviewsResume> = new Map(),
    private readonly walks: Map<string, WalkResume<unknown>> = new Map(),
  ) {}

  /** The payload field of a job that goes on from a stopped review read, or nothing. */
  review(id: string): { resume?: ReviewsResume } {
    const resume = this.reviews.get(id);
    return resume ? { resume } : {};
  }

  /** The accords job: from where a stopped read left the list, if one did. */
  accords(): JobPayloads['accords'] {
    return this.walk('accords');
  }

  /** A brand's catalogue job, from where a stopped read left it, if one did. */
  catalogue(slug: string): JobPayloads['brandCatalogue'] {
    return { slug, ...this.walk(`brand:${slug}`) };
  }

  /** Stored by the job kind that reads this walk, so its entries are that job's (resume.ts walkResume). */
  private walk<T>(name: string): { resume?: WalkResume<T> } {
    const resume = this.walks.get(name) as WalkResume<T> | undefined;
    return resume ? { resume } : {};
  }
}

/** The reads a stop cut short in the open cycle that begun at `cycleStart`. */
export async function loadResumes(
  warehouse: WarehouseHandle,
  state: SyncState,
  cycleStart: string,
): Promise<Resumes> {
  const walks = new Map<string, WalkResume<unknown>>();
  for (const w of state.walks) {
    const resume = w.at >= cycleStart && !w.done ? walkResume(w) : null;
    if (resume) walks.set(w.walk, resume);
  }
  return new Resumes(await reviewsResumes(warehouse, state, cycleStart), walks);
}

/**
 * A stopped walk's kept pages, when they are what the job stored: page 1 and every page
 * before the last one full at the page size, none past the pages the total implies.
 */
function walkResume(w: WalkState): WalkResume<unknown> | null {
  const pages = w.kept;
  const size = w.pageSize ?? 0;
  if (!pages || size < 1 || !pages[0] || pages.length > Math.max(1, Math.ceil(w.total / size))) return null;
  const last = Math.ceil(w.total / size);
  const fits = (p: unknown[] | null, i: number) =>
    p === null || (Array.isArray(p) && (i + 1 < last ? p.length === size : p.length <= size));
  return pages.every(fits) ? { size, total: w.total, pages } : null;
}

/**
 * Review reads: the read stored its pages as the fragrance's reviews with the service's
 * total, and a walk mark `reviews:<id>` with the pages read, their size and the total. It is
 * taken up again only when the warehouse still holds exactly those pages (nothing replaced
 * them since) under that total; the job then checks the service's total has not moved
 * either, else it reads from page 1.
 */
async function reviewsResumes(
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
