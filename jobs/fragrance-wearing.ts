import { fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

export const fragranceWearing: Processor<'fragranceWearing'> = (ctx, { id }) =>
  guarded('fragrance', id, 'wearing', async () => {
    const res = await ctx.client.getWearingStats(id, ctx.signal);
    const w = res.data;
    return {
      items: [
        {
          kind: 'wearing',
          fragranceId: id,
          // The validated values are exactly the item's (zod drops unknown fields): no copies.
          seasons: w.seasons,
          moods: w.moods,
          occasions: w.occasions,
        },
      ],
      progress: [fetched('fragrance', id, 'wearing')],
      follow: [],
    };
  });
