import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named } from './guard.ts';
import { job, PRIORITY, withPass } from './job-id.ts';
import type { Processor } from './types.ts';

export const PAGE_SIZE = MAX_PAGE_SIZE.listFragrances;

/**
 * One page of the fragrance list: 50 summaries for one cent, the cheapest way to learn
 * every id. Page 1 also learns the total and hands back the remaining pages.
 */
export const fragrancesPage: Processor<'fragrancesPage'> = async (ctx, { page, pass }) => {
  const res = await ctx.client.listFragrances({ page, limit: PAGE_SIZE }, ctx.signal);
  const { data, pagination } = res.data;
  const pages = Math.max(1, Math.ceil(pagination.total / PAGE_SIZE));
  return {
    items: data.map((f) => ({ kind: 'fragranceSummary' as const, id: f.id, name: f.name, brand: f.brand })),
    progress: [
      { kind: 'walk', walk: `fragrances@${page}`, page, total: pagination.total, done: true },
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
