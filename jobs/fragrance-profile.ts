import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

/**
 * The profile: the only source of year, score and perfumer, and it carries notes, accords
 * and the brand and perfumer slugs that drive discovery to its fixed point. The coordinator
 * schedules the fragrance's other datasets once this one is fetched, so a fragrance that
 * upstream removed costs one 404 instead of five calls.
 */
export const fragranceProfile: Processor<'fragranceProfile'> = (ctx, { id }) =>
  guarded('fragrance', id, 'profile', async () => {
    const res = await ctx.client.getFragrance(id, ctx.signal);
    const p = res.data;
    return {
      items: [
        {
          kind: 'fragrance',
          // Stored under the id we asked for: a slug request may answer with the canonical id,
          // and the rows must meet the same key the list and the catalogues use.
          id,
          name: p.name,
          brand: p.brand,
          brandSlug: p.brandSlug,
          perfumer: p.perfumer,
          perfumerSlug: p.perfumerSlug,
          year: p.year,
          score: p.score,
          // zod's (or the fast check's) validated values are exactly the item's: no copies.
          notes: p.notes,
          accords: p.accords,
        },
      ],
      progress: [
        fetched('fragrance', id, 'profile'),
        named('brand', [p.brandSlug], 'profile'),
        named('perfumer', [p.perfumerSlug], 'profile'),
      ],
      follow: [],
    };
  });
