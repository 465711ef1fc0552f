import { MAX_PAGE_SIZE } from '../domain/endpoints.ts';
import type { WalkState } from '../warehouse/state-types.ts';
import type { PagedWalk } from './cost-model.ts';

/**
 * The mark of a walk that carries its total and page size. The paged walks (the fragrance
 * list, the notes: jobs/fragrances-page.ts, notes-page.ts) mark each page as `<name>@<page>`,
 * page 1 with the total; the others (accords, charts, brand catalogues) one mark under their
 * name.
 */
export function walkMark(walks: readonly WalkState[], name: string): WalkState | undefined {
  return walks.find((w) => w.walk === name) ?? walks.find((w) => w.walk === `${name}@1`);
}

/**
 * The page sizes the service used where it served fewer than asked (a legal reading:
 * `pagination.limit` is the size used), from the walks' marks: per kind of walk (the fragrance
 * and note lists, accords, brand catalogues), the smallest seen. Review walks keep no mark once
 * read, so a service that cut list pages is taken to cut review pages alike. The summary's
 * minimum and `plan` read it the same way.
 */
export function servedPageSizes(
  walks: readonly Pick<WalkState, 'walk' | 'pageSize'>[],
): Partial<Record<PagedWalk, number>> {
  const sizes: Partial<Record<PagedWalk, number>> = {};
  for (const w of walks) {
    if (w.pageSize === null || w.pageSize === undefined || w.pageSize >= MAX_PAGE_SIZE.listFragrances)
      continue;
    const kind = (w.walk.startsWith('brand:') ? 'brands' : /^[a-z]+/.exec(w.walk)?.[0]) as PagedWalk;
    if (!PAGED.includes(kind)) continue;
    sizes[kind] = Math.min(sizes[kind] ?? Infinity, w.pageSize);
  }
  const smallest = Math.min(...Object.values(sizes));
  if (sizes.reviews === undefined && Number.isFinite(smallest)) sizes.reviews = smallest;
  return sizes;
}

const PAGED: readonly PagedWalk[] = ['fragrances', 'reviews', 'brands', 'notes', 'accords'];
