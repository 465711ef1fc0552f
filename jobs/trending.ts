import { named } from './guard.ts';
import type { Processor } from './types.ts';

/** Opt-in: trending names fragrances and notes; it discovers, it stores summaries. */
export const trending: Processor<'trending'> = async (ctx) => {
  const res = await ctx.client.trending(ctx.signal);
  const t = res.data;
  return {
    items: t.fragrances.map((f) => ({
      kind: 'fragranceSummary' as const,
      id: f.id,
      name: f.name,
      brand: f.brand,
    })),
    progress: [
      named(
        'fragrance',
        t.fragrances.map((f) => f.id),
        'trending',
      ),
      named(
        'note',
        t.notes.map((n) => n.slug),
        'trending',
      ),
    ],
    follow: [],
  };
};
