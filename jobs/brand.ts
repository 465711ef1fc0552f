import { discovered, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

export const brand: Processor<'brand'> = (ctx, { slug }) =>
  guarded('brand', slug, 'profile', async () => {
    const res = await ctx.client.getBrand(slug, ctx.signal);
    const b = res.data;
    return {
      items: [{ kind: 'brand', slug, name: b.name, country: b.country, description: b.description }],
      progress: [
        fetched('brand', slug, 'profile'),
        ...b.topFragrances.map((f) => discovered('fragrance', f.id, 'brand')),
      ],
      follow: [],
    };
  });
