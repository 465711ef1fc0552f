import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named, fetched, guarded } from './guard.ts';
import { similarColumns } from '../src/domain/items.ts';
import type { Processor } from './types.ts';

/** The whole similar list in one 2-cent call: the API's largest limit (50) is the contract's default. */
export const fragranceSimilar: Processor<'fragranceSimilar'> = (ctx, { id }) =>
  guarded('fragrance', id, 'similar', async () => {
    const res = await ctx.client.getSimilar(id, { limit: MAX_PAGE_SIZE.getSimilar }, ctx.signal);
    const { ids, scores } = similarColumns(res.data.similar);
    return {
      items: [{ kind: 'similar', fragranceId: id, ids, scores }],
      // The ids column is also the list of fragrances the response names.
      progress: [fetched('fragrance', id, 'similar'), named('fragrance', ids, 'similar')],
      follow: [],
    };
  });
