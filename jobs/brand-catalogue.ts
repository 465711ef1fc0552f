import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named, fetched, guarded } from './guard.ts';
import { walkAll } from './paging.ts';
import type { Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.getBrandFragrances;

/**
 * A brand's exhaustive catalogue, every page (as many as the service's page size makes them,
 * paging.ts), handed to the loader as one list. Only a walk known complete replaces
 * brand_fragrances for the brand (a fragrance that left the brand leaves the table); one
 * that is not (the total moved, a page came back short or at another size) only adds what
 * it read, and removes nothing on its account. Ids are deduplicated in API order: a page
 * boundary that shifted mid-read must not list one fragrance twice.
 */
export const brandCatalogue: Processor<'brandCatalogue'> = (ctx, { slug }) =>
  guarded('brand', slug, 'catalogue', async () => {
    const walked = await walkAll((page) =>
      ctx.client.getBrandFragrances(slug, { page, limit: PAGE_SIZE }, ctx.signal).then((r) => r.data),
    );
    const seen = new Map<string, { id: string; name: string }>();
    for (const f of walked.entries) if (!seen.has(f.id)) seen.set(f.id, { id: f.id, name: f.name });
    const fragrances = [...seen.values()];
    const { complete, total, size: pageSize, pages: page } = walked;
    if (!complete)
      ctx.log.warn(
        { slug, total, read: walked.entries.length, page },
        'brand catalogue not known complete: nothing removed',
      );
    return {
      items: [{ kind: 'brandCatalogue', brandSlug: slug, fragrances, ...(complete ? {} : { complete }) }],
      progress: [
        fetched('brand', slug, 'catalogue'),
        { kind: 'walk', walk: `brand:${slug}`, page, total, done: complete, pageSize },
        named(
          'fragrance',
          fragrances.map((f) => f.id),
          'catalogue',
        ),
      ],
      follow: [],
    };
  });
