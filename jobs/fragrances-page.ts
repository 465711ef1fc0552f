import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named } from './guard.ts';
import { job, PRIORITY, withPass } from './job-id.ts';
import { pageCount, pageSizeOf } from './paging.ts';
import type { Processor } from './types.ts';

export const PAGE_SIZE = MAX_PAGE_SIZE.listFragrances;

/**
 * One page of the fragrance list: 50 summaries for one cent, the cheapest way to learn
 * every id. Page 1 also learns the total and the page size the service uses (paging.ts),
 * and hands back the remaining pages.
 */
export const fragrancesPage: Processor<'fragrancesPage'> = async (ctx, { page, pass }) => {
  const res = await ctx.client.listFragrances({ page, limit: PAGE_SIZE }, ctx.signal);
  const { data, pagination } = res.data;
  const { size } = pageSizeOf(pagination, data.length);
  const pages = pageCount(pagination.total, size);
  return {
    items: data.map((f) => ({ kind: 'fragranceSummary' as const, id: f.id, name: f.name, brand: f.brand })),
    progress: [
      { kind: 'walk', walk: `fragrances@${page}`, page, total: pagination.total, done: true, pageSize: size },
      named(
        'fragrance',
        data.map((f) => f.id),
        'list',
      ),
    ],
    follow:
      page === 1
        ? Array.from({ length: pages - 1 }, (_, i) =>
            job('fragrancesPage', withPass({ page: i + 2 }, pass), PRIORITY.walk),
          )
        : [],
  };
};
