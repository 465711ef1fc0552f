import { named, fetched, guarded } from './guard.ts';
import type { Processor } from './types.ts';

/** A note's profile: the description is only here, not in the note list. */
export const note: Processor<'note'> = (ctx, { slug }) =>
  guarded('note', slug, 'profile', async () => {
    const res = await ctx.client.getNote(slug, ctx.signal);
    const n = res.data;
    return {
      items: [{ kind: 'note', slug, name: n.name, family: n.family, description: n.description }],
      progress: [
        fetched('note', slug, 'profile'),
        named(
          'fragrance',
          n.topFragrances.map((f) => f.id),
          'note',
        ),
      ],
      follow: [],
    };
  });
