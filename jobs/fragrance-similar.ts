import { MAX_PAGE_SIZE } from '../src/api/endpoints.ts';
import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

/** The whole similar list in one 2-cent call: the API's largest limit (50) is the contract's default. */
export const fragranceSimilar: Processor<'fragranceSimilar'> = (ctx, { id }) =>
  guarded('fragrance', id, 'similar', async () => {
    const res = await ctx.client.getSimilar(id, { limit: MAX_PAGE_SIZE.getSimilar }, ctx.signal);
    // The validated entries are exactly the item's (zod drops unknown fields): no copy.
    const entries = res.data.similar;
    return {
      items: [{ kind: 'similar', fragranceId: id, entries }],
      progress: [
        fetched('fragrance', id, 'similar'),
        named(
          'fragrance',
          entries.map((e) => e.id),
          'similar',
        ),
      ],
      follow: [],
    };
  });
