import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

export const brand: Processor<'brand'> = (ctx, { slug }) =>
  guarded('brand', slug, 'profile', async () => {
    const res = await ctx.client.getBrand(slug, ctx.signal);
    const b = res.data;
    return {
      items: [{ kind: 'brand', slug, name: b.name, country: b.country, description: b.description }],
      progress: [
        fetched('brand', slug, 'profile'),
        named(
          'fragrance',
          b.topFragrances.map((f) => f.id),
          'brand',
        ),
      ],
      follow: [],
    };
  });
