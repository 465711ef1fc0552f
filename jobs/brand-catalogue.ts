import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.getBrandFragrances;

/**
 * A brand's exhaustive catalogue, every page, handed to the loader as one list so that
 * brand_fragrances is replaced as a whole (a fragrance that left the brand leaves the table).
 * Ids are deduplicated in API order: a page boundary that shifted mid-read must not list one
 * fragrance twice.
 */
export const brandCatalogue: Processor<'brandCatalogue'> = (ctx, { slug }) =>
  guarded('brand', slug, 'catalogue', async () => {
    const seen = new Map<string, { id: string; name: string }>();
    let total = 0;
    for (let page = 1; ; page++) {
      const res = await ctx.client.getBrandFragrances(slug, { page, limit: PAGE_SIZE }, ctx.signal);
      total = res.data.pagination.total;
      for (const f of res.data.data) if (!seen.has(f.id)) seen.set(f.id, { id: f.id, name: f.name });
      if (page >= Math.ceil(total / PAGE_SIZE) || res.data.data.length === 0) break;
    }
    const fragrances = [...seen.values()];
    return {
      items: [{ kind: 'brandCatalogue', brandSlug: slug, fragrances }],
      progress: [
        fetched('brand', slug, 'catalogue'),
        named(
          'fragrance',
          fragrances.map((f) => f.id),
          'catalogue',
        ),
      ],
      follow: [],
    };
  });
