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
          seasons: {
            spring: w.seasons.spring,
            summer: w.seasons.summer,
            fall: w.seasons.fall,
            winter: w.seasons.winter,
          },
          moods: w.moods.map((m) => ({ label: m.label, score: m.score })),
          occasions: w.occasions.map((o) => ({ label: o.label, score: o.score })),
        },
      ],
      progress: [fetched('fragrance', id, 'wearing')],
      follow: [],
    };
  });
