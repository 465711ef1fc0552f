import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import type { AccordItem } from '../src/domain/items.ts';
import { named } from './guard.ts';
import { job, PRIORITY } from './job-id.ts';
import { stoppedWalk, walkAll, type Walked } from './paging.ts';
import type { AccordEntry, Processor } from './types.ts';

const PAGE_SIZE = MAX_PAGE_SIZE.listAccords;

const itemsOf = (entries: AccordEntry[]): AccordItem[] =>
  entries.map((a) => ({ kind: 'accord', slug: a.slug, name: a.name }));

/**
 * The whole accord list (about 90 families, two pages at 50) in one job, so the coordinator
 * sees the complete set at once and can remove accords upstream dropped. Pages as many as
 * the service's page size makes them (paging.ts); a walk not known complete is reported
 * not done, so nothing is removed on its account and the next run reads it again. Stopped
 * part-way, it keeps the pages it bought and the next read goes on from there (stoppedWalk).
 */
export const accords: Processor<'accords'> = async (ctx, payload) => {
  let walked: Walked<AccordEntry>;
  try {
    walked = await walkAll(
      (page) =>
        ctx.client.listAccords({ page, limit: PAGE_SIZE }, ctx.signal).then(({ data }) => ({
          data: data.data.map((a) => ({ slug: a.slug, name: a.name })),
          pagination: data.pagination,
        })),
      payload.resume,
    );
  } catch (err) {
    throw stoppedWalk(err, 'accords', itemsOf, (resume) =>
      job('accords', { ...payload, resume }, PRIORITY.walk),
    );
  }
  const items = itemsOf(walked.entries);
  const { pages: page, total, complete: done, size: pageSize } = walked;
  return {
    items,
    progress: [
      { kind: 'walk', walk: 'accords', page, total, done, pageSize },
      named(
        'accord',
        items.map((a) => a.slug),
        'accords',
      ),
    ],
    follow: [],
  };
};
