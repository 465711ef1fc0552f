import { named } from './guard.ts';
import type { Processor } from './types.ts';

/** The chart list: charts are curated and new ones appear, so slugs always come from here. */
export const charts: Processor<'charts'> = async (ctx) => {
  const res = await ctx.client.listCharts(ctx.signal);
  const list = res.data.charts;
  return {
    items: list.map((c) => ({ kind: 'chart' as const, slug: c.slug, title: c.title })),
    progress: [
      { kind: 'walk', walk: 'charts', page: 1, total: list.length, done: true },
      named(
        'chart',
        list.map((c) => c.slug),
        'charts',
      ),
    ],
    follow: [],
  };
};
