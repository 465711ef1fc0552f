import { named } from './guard.ts';
import type { Processor } from './types.ts';

/**
 * Resolves up to 50 ids that were named somewhere but never listed, in one call. Upstream
 * omits misses silently, so they are found by comparing what came back with what was asked,
 * and recorded as removals (they stay out of the current tables).
 */
export const batch: Processor<'batch'> = async (ctx, { ids }) => {
  const res = await ctx.client.batch(ids, ctx.signal);
  const found = new Map(res.data.fragrances.map((f) => [f.id, f]));
  const misses = ids.filter((id) => !found.has(id));
  if (misses.length > 0) ctx.log.info({ asked: ids.length, found: found.size }, 'batch misses recorded');
  return {
    items: [
      ...[...found.values()].map((f) => ({
        kind: 'fragranceSummary' as const,
        id: f.id,
        name: f.name,
        brand: f.brand,
      })),
      ...(misses.length > 0
        ? [{ kind: 'removal' as const, entity: 'fragrance' as const, keys: misses }]
        : []),
    ],
    progress: [named('fragrance', [...found.keys()], 'batch')],
    follow: [],
  };
};
