import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import type { AccordItem } from '../src/domain/items.ts';
import { named } from './guard.ts';
import type { Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.listAccords;

/**
 * The whole accord list (about 90 families, two pages) in one job, so the coordinator sees
 * the complete set at once and can remove accords upstream dropped.
 */
export const accords: Processor<'accords'> = async (ctx) => {
  const items: AccordItem[] = [];
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await ctx.client.listAccords({ page, limit: PAGE_SIZE }, ctx.signal);
    total = res.data.pagination.total;
    for (const a of res.data.data) items.push({ kind: 'accord', slug: a.slug, name: a.name });
    if (page * PAGE_SIZE >= total || res.data.data.length === 0) break;
  }
  return {
    items,
    progress: [
      { kind: 'walk', walk: 'accords', page: Math.max(1, Math.ceil(total / PAGE_SIZE)), total, done: true },
      named(
        'accord',
        items.map((a) => a.slug),
        'accords',
      ),
    ],
    follow: [],
  };
};
