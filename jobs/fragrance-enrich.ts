import { MAX_PAGE_SIZE } from '../src/domain/endpoints.ts';
import { isFragsyncError } from '../src/errors.ts';
import { reviewColumns, similarColumns, type LoadItem } from '../src/domain/items.ts';
import { fragranceReviews } from './fragrance-reviews.ts';
import { fragranceSimilar } from './fragrance-similar.ts';
import { named, fetched } from './guard.ts';
import type { JobResult, Processor } from './types.ts';

const CAP = MAX_PAGE_SIZE.enrichLimit;

/**
 * Under the `calls` objective (the daily quota binds before money does), one enrich call
 * (10 cents, 1 quota unit) stands in for the similar list and the review page of a fragrance
 * whose previous sync showed fewer than 20 similar entries and at most 20 reviews. Enrich
 * returns no totals, so a list that comes back full (20) may be cut: then the job falls back
 * to the plain call for that list. Enrich takes slug-style ids; when the service refuses the
 * id (opaque ids), the plain calls are used.
 */
export const fragranceEnrich: Processor<'fragranceEnrich'> = async (ctx, { id }) => {
  let res;
  try {
    res = await ctx.client.enrich({ id, similarLimit: CAP, reviewLimit: CAP }, ctx.signal);
  } catch (err) {
    if (
      isFragsyncError(err) &&
      (err.code === 'NOT_FOUND' || err.code === 'API_CLIENT_ERROR' || err.code === 'RESPONSE_INVALID')
    ) {
      ctx.log.debug({ id, code: err.code }, 'enrich refused; using the plain calls');
      return merge(
        await fragranceSimilar(ctx, { id }),
        await fragranceReviews(ctx, { id, knownTotal: null, knownCount: null }),
      );
    }
    throw err;
  }
  const e = res.data;
  const out: JobResult = { items: [], progress: [], follow: [] };
  if (e.similar.length < CAP) {
    const { ids, scores } = similarColumns(e.similar);
    out.items.push({ kind: 'similar', fragranceId: id, ids, scores });
    out.progress.push(fetched('fragrance', id, 'similar'), named('fragrance', ids, 'similar'));
  } else {
    merge(out, await fragranceSimilar(ctx, { id }));
  }
  if (e.reviews.length < CAP) {
    const item: LoadItem = {
      kind: 'reviews',
      fragranceId: id,
      mode: 'replace',
      total: e.reviews.length,
      ...reviewColumns(e.reviews),
    };
    out.items.push(item);
    out.progress.push(fetched('fragrance', id, 'reviews'));
  } else {
    merge(out, await fragranceReviews(ctx, { id, knownTotal: null, knownCount: null }));
  }
  return out;
};

function merge(into: JobResult, more: JobResult): JobResult {
  into.items.push(...more.items);
  into.progress.push(...more.progress);
  into.follow.push(...more.follow);
  return into;
}
