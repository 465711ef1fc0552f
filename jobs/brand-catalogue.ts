import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import type { BrandCatalogueItem } from '../src/domain/items.ts';
import { named, fetched, guarded } from './guard.ts';
import { job, PRIORITY } from './job-id.ts';
import { stoppedWalk, walkAll, type Walked } from './paging.ts';
import type { CatalogueEntry, Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.getBrandFragrances;

/** Ids deduplicated in API order: a page boundary that shifted mid-read must not list one twice. */
function members(entries: CatalogueEntry[]): CatalogueEntry[] {
  const seen = new Map<string, CatalogueEntry>();
  for (const f of entries) if (!seen.has(f.id)) seen.set(f.id, { id: f.id, name: f.name });
  return [...seen.values()];
}

/**
 * A brand's exhaustive catalogue, every page (as many as the service's page size makes them,
 * paging.ts), handed to the loader as one list. Only a walk known complete replaces
 * brand_fragrances for the brand (a fragrance that left the brand leaves the table); one
 * that is not (the total moved, a page came back short or at another size) only adds what
 * it read, and removes nothing on its account. Stopped part-way, it adds the members it
 * bought and keeps their pages, and the next read goes on from there (stoppedWalk).
 */
export const brandCatalogue: Processor<'brandCatalogue'> = (ctx, payload) =>
  guarded('brand', payload.slug, 'catalogue', async () => {
    const { slug } = payload;
    let walked: Walked<CatalogueEntry>;
    try {
      walked = await walkAll(
        (page) =>
          ctx.client.getBrandFragrances(slug, { page, limit: PAGE_SIZE }, ctx.signal).then(({ data }) => ({
            data: data.data.map((f) => ({ id: f.id, name: f.name })),
            pagination: data.pagination,
          })),
        payload.resume,
      );
    } catch (err) {
      const items = (entries: CatalogueEntry[]): BrandCatalogueItem[] => [
        { kind: 'brandCatalogue', brandSlug: slug, fragrances: members(entries), complete: false },
      ];
      throw stoppedWalk(err, `brand:${slug}`, items, (resume) =>
        job('brandCatalogue', { ...payload, resume }, PRIORITY.entity),
      );
    }
    const fragrances = members(walked.entries);
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
