import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { named } from './guard.ts';
import { job, PRIORITY, withPass } from './job-id.ts';
import { pageCount, pageSizeOf } from './paging.ts';
import type { Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.listNotes;

/**
 * One page of the note list (slug, name, family); each note's description needs its profile.
 * Page 1 learns the total and the page size the service uses (paging.ts).
 */
export const notesPage: Processor<'notesPage'> = async (ctx, { page, pass }) => {
  const res = await ctx.client.listNotes({ page, limit: PAGE_SIZE }, ctx.signal);
  const { data, pagination } = res.data;
  const { size } = pageSizeOf(pagination, data.length);
  const pages = pageCount(pagination.total, size);
  return {
    items: data.map((n) => ({ kind: 'note' as const, slug: n.slug, name: n.name, family: n.family })),
    progress: [
      { kind: 'walk', walk: `notes@${page}`, page, total: pagination.total, done: true, pageSize: size },
      named(
        'note',
        data.map((n) => n.slug),
        'notes',
      ),
    ],
    follow:
      page === 1
        ? Array.from({ length: pages - 1 }, (_, i) =>
            job('notesPage', withPass({ page: i + 2 }, pass), PRIORITY.walk),
          )
        : [],
  };
};
