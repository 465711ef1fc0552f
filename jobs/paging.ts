import type { Pagination } from '../src/api/schemas.ts';

/**
 * Paging as the service says it pages. `pagination.limit` is "the page size used" (spec): it
 * may be smaller than the size asked for, and page n then holds items (n-1)*limit+1 to
 * n*limit. So the size comes from the response, and the number of pages from its total and
 * that size, never from what was asked.
 */
export interface PageSize {
  /** Items per page the service used. */
  size: number;
  /** False when the response gave no usable limit (not a positive integer) and the page's own length stands in. */
  stated: boolean;
}

export function pageSizeOf(p: Pagination, itemsOnPage: number): PageSize {
  if (p.limit >= 1) return { size: p.limit, stated: true };
  return { size: Math.max(1, itemsOnPage), stated: false };
}

/** Pages of a walk of `total` items at `size` a page (at least the first). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

export interface Walked<T> {
  /** Every entry of every page, in API order (repeats kept). */
  entries: T[];
  /** pagination.total of the last page read. */
  total: number;
  /** The page size page 1 reported (pageSizeOf). */
  size: number;
  /** Pages read. */
  pages: number;
  /**
   * Known complete: every page up to ceil(total / size) was read, each at the size of page 1,
   * the total did not move meanwhile, and at least `total` entries came back. Only a
   * complete walk may stand for the whole list (and remove what it does not name).
   */
  complete: boolean;
}

/** Reads every page of a list whose pages one job reads together (accords, a brand's catalogue). */
export async function walkAll<T>(
  read: (page: number) => Promise<{ data: T[]; pagination: Pagination }>,
): Promise<Walked<T>> {
  const entries: T[] = [];
  let size = 1;
  let firstTotal = 0;
  let total = 0;
  let sameSize = true;
  let page = 1;
  for (; ; page++) {
    const { data, pagination } = await read(page);
    if (page === 1) {
      size = pageSizeOf(pagination, data.length).size;
      firstTotal = pagination.total;
    } else if (pagination.limit !== size) sameSize = false;
    total = pagination.total;
    for (const e of data) entries.push(e);
    if (page >= pageCount(total, size) || data.length === 0) break;
  }
  const complete =
    sameSize && total === firstTotal && page >= pageCount(total, size) && entries.length >= total;
  return { entries, total, size, pages: page, complete };
}
