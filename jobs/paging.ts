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

/**
 * Pages `from` to `to` of a walk, side by side: once page 1 has given the total there is no
 * reason to wait for one page before asking for the next (the client's request permits bound
 * what is in flight, the governor admits each request as ever). Every request settles before
 * this returns or throws, so each one, a paid call, reaches the job's outcome and the ledger
 * whatever became of the others; the first failure (in time) is thrown. Pages in page order.
 */
export async function readPages<R>(
  from: number,
  to: number,
  read: (page: number) => Promise<R>,
): Promise<R[]> {
  let failure: { err: unknown } | null = null;
  const pages = await Promise.all(
    Array.from({ length: Math.max(0, to - from + 1) }, (_, i) =>
      read(from + i).catch((err: unknown) => {
        failure ??= { err };
        return undefined;
      }),
    ),
  );
  if (failure) throw (failure as { err: unknown }).err;
  return pages as R[];
}

/**
 * Reads every page of a list whose pages one job reads together (accords, a brand's
 * catalogue): page 1, then the pages its total and page size imply, side by side
 * (readPages), then any more a total that grew meanwhile implies.
 */
export async function walkAll<T>(
  read: (page: number) => Promise<{ data: T[]; pagination: Pagination }>,
): Promise<Walked<T>> {
  const first = await read(1);
  const size = pageSizeOf(first.pagination, first.data.length).size;
  const firstTotal = first.pagination.total;
  const entries: T[] = [...first.data];
  let total = firstTotal;
  let same = true; // every page at page 1's size and total
  let page = 1;
  let ended = first.data.length === 0;
  while (!ended && page < pageCount(total, size)) {
    for (const { data, pagination } of await readPages(page + 1, pageCount(total, size), read)) {
      page++;
      if (pagination.limit !== size || pagination.total !== firstTotal) same = false;
      total = pagination.total;
      for (const e of data) entries.push(e);
      // An empty page ends the list (it shrank meanwhile): what follows it is not read on.
      if (data.length === 0) {
        ended = true;
        break;
      }
    }
  }
  const complete = same && page >= pageCount(total, size) && entries.length >= total;
  return { entries, total, size, pages: page, complete };
}
