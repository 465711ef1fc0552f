import { discovered } from './guard.ts';
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
      ...t.fragrances.map((f) => discovered('fragrance', f.id, 'trending')),
      ...t.notes.map((n) => discovered('note', n.slug, 'trending')),
    ],
    follow: [],
  };
};
