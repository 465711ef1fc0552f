import { fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

/** Opt-in (5 cents each): the digest's fields are not in the spec, so it is stored as raw JSON. */
export const reviewDigest: Processor<'reviewDigest'> = (ctx, { id }) =>
  guarded('fragrance', id, 'reviewDigest', async () => {
    const res = await ctx.client.getReviewDigest(id, ctx.signal);
    return {
      items: [{ kind: 'reviewDigest', fragranceId: id, raw: res.data }],
      progress: [fetched('fragrance', id, 'reviewDigest')],
      follow: [],
    };
  });
