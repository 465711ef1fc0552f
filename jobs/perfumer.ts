import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

export const perfumer: Processor<'perfumer'> = (ctx, { slug }) =>
  guarded('perfumer', slug, 'profile', async () => {
    const res = await ctx.client.getPerfumer(slug, ctx.signal);
    const p = res.data;
    return {
      items: [{ kind: 'perfumer', slug, name: p.name, nationality: p.nationality, bio: p.bio }],
      progress: [
        fetched('perfumer', slug, 'profile'),
        named(
          'fragrance',
          p.topCreations.map((f) => f.id),
          'perfumer',
        ),
      ],
      follow: [],
    };
  });
