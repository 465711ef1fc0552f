import type { Pagination } from '../src/api/schemas.ts';
import type { LoadItem } from '../src/domain/items.ts';
import { stopsTheRun } from './guard.ts';
import { PartialResultError, type JobSpec, type WalkResume } from './types.ts';

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

/** One page of a list as the service answers it. */
export interface Listing<T> {
  data: T[];
  pagination: Pagination;
}

/**
 * A walk cut short by `cause` (a refused page) after buying some pages that still line up
 * (each at page 1's size and total): `at` keeps them, for the job to store (issue 14, no
 * page bought twice). A walk whose pages already disagree throws `cause` alone.
 */
export class WalkStopped<T> extends Error {
  constructor(
    override readonly cause: unknown,
    readonly at: WalkResume<T>,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'WalkStopped';
  }
}

/**
 * The pages `wanted` of a walk, side by side: once page 1 has given the total there is no
 * reason to wait for one page before asking for the next (the client's request permits bound
 * what is in flight, the governor admits each request as ever). Every request settles before
 * this returns, so each one, a paid call, reaches the job's outcome and the ledger whatever
 * became of the others. Each page's answer or failure, in the order asked.
 */
export async function readPages<R>(
  wanted: readonly number[],
  read: (page: number) => Promise<R>,
): Promise<({ ok: R } | { err: unknown })[]> {
  return Promise.all(
    wanted.map((n) =>
      read(n).then(
        (ok) => ({ ok }),
        (err: unknown) => ({ err }),
      ),
    ),
  );
}

/**
 * Reads every page of a list whose pages one job reads together (accords, a brand's
 * catalogue): page 1, then the pages its total and page size imply, side by side
 * (readPages), then any more a total that grew meanwhile implies. With `resume`, the pages a
 * stopped read kept stand for themselves while the list has not moved (the first page read
 * now shows their total and size); else the list is read again from page 1. A page refused
 * throws, once every page asked for has settled: WalkStopped with the pages bought when they
 * line up.
 */
export async function walkAll<T>(
  read: (page: number) => Promise<Listing<T>>,
  resume?: WalkResume<T>,
): Promise<Walked<T>> {
  const got: (Listing<T> | null)[] = [];
  let size: number;
  let firstTotal: number;
  if (resume) {
    ({ size, total: firstTotal } = resume);
    const pagination = (page: number) => ({ page, limit: size, total: firstTotal });
    resume.pages.forEach((data, i) => (got[i] = data && { data, pagination: pagination(i + 1) }));
    const next = firstMissing(got, pageCount(firstTotal, size));
    if (next !== null) {
      const probe = await read(next);
      const moved = probe.pagination.total !== firstTotal;
      if (moved || pageSizeOf(probe.pagination, probe.data.length).size !== size) return walkAll(read);
      got[next - 1] = probe;
    }
  } else {
    const first = await read(1);
    got[0] = first;
    size = pageSizeOf(first.pagination, first.data.length).size;
    firstTotal = first.pagination.total;
  }
  const lined = (l: Listing<T> | null) =>
    !l || (l.pagination.limit === size && l.pagination.total === firstTotal);
  for (;;) {
    const { total, ended } = state(got);
    const wanted: number[] = [];
    if (!ended) for (let n = 1; n <= pageCount(total, size); n++) if (!got[n - 1]) wanted.push(n);
    if (wanted.length === 0) break;
    const settled = await readPages(wanted, read);
    let failure: { err: unknown } | null = null;
    settled.forEach((s, i) => {
      if ('ok' in s) got[wanted[i]! - 1] = s.ok;
      else failure ??= s;
    });
    if (failure) {
      const { err } = failure as { err: unknown };
      if (!got.every(lined)) throw err;
      throw new WalkStopped(err, { size, total: firstTotal, pages: [...got].map((l) => l?.data ?? null) });
    }
  }
  const { total, pages, entries } = state(got);
  const same = got.slice(0, pages).every(lined);
  const complete = same && pages >= pageCount(total, size) && entries.length >= total;
  return { entries, total, size, pages, complete };
}

/** The first page of 1..count not read, or null. */
function firstMissing<T>(got: (Listing<T> | null)[], count: number): number | null {
  for (let n = 1; n <= count; n++) if (!got[n - 1]) return n;
  return null;
}

/**
 * The pages read in order from page 1, up to the first one not read: the total the last of
 * them states, their entries, and whether an empty page ended the list (it shrank meanwhile:
 * what follows it is not read on).
 */
function state<T>(got: (Listing<T> | null)[]): {
  total: number;
  pages: number;
  entries: T[];
  ended: boolean;
} {
  const entries: T[] = [];
  let total = 0;
  let pages = 0;
  for (const l of got) {
    if (!l) break;
    pages++;
    total = l.pagination.total;
    for (const e of l.data) entries.push(e);
    if (l.data.length === 0) return { total, pages, entries, ended: true };
  }
  return { total, pages, entries, ended: false };
}

/**
 * What a job makes of a walk that `err` cut short: when a stop or pause of the run refused a
 * page (stopsTheRun) and the pages bought line up (WalkStopped), a PartialResultError that
 * stores `items` made of their entries with a walk mark keeping the pages (not done), and
 * `next`, the job that reads on from there; anything else, the error itself.
 */
export function stoppedWalk<T>(
  err: unknown,
  walk: string,
  items: (entries: T[]) => LoadItem[],
  next: (at: WalkResume<T>) => JobSpec,
): unknown {
  if (!(err instanceof WalkStopped)) return err;
  if (!stopsTheRun(err.cause)) return err.cause;
  const at = err.at as WalkResume<T>;
  const kept = at.pages.filter((p) => p !== null);
  const mark = { kind: 'walk' as const, walk, page: kept.length, total: at.total, done: false };
  const progress = [{ ...mark, pageSize: at.size, kept: at.pages }];
  return new PartialResultError(err.cause, { items: items(kept.flat()), progress, follow: [] }, next(at));
}
