import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

/** One chart's leaderboard, stored as the snapshot of the service's UTC day (its Date header). */
export const chart: Processor<'chart'> = (ctx, { slug }) =>
  guarded('chart', slug, 'profile', async () => {
    const res = await ctx.client.getChart(slug, ctx.signal);
    const day = (res.rateLimit.serverDate ?? new Date()).toISOString().slice(0, 10);
    const c = res.data;
    return {
      items: [
        {
          kind: 'chartSnapshot',
          chartSlug: c.slug,
          title: c.title,
          snapshotDate: day,
          entries: c.entries.map((e) => ({
            rank: e.rank,
            id: e.id,
            name: e.name,
            brand: e.brand,
            score: e.score,
          })),
        },
      ],
      progress: [
        fetched('chart', slug, 'profile'),
        named(
          'fragrance',
          c.entries.map((e) => e.id),
          'chart',
        ),
      ],
      follow: [],
    };
  });
