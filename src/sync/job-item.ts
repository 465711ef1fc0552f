import type { JobKind } from '../../jobs/types.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';

/**
 * The item a job of each kind is for, and the dataset of it the job fetches: the ranking
 * orders jobs by their item (rank.ts), and an owed job is dropped once its dataset was
 * fetched (owed-jobs.ts stillOwed). An enrich fetches two datasets (similar and reviews):
 * null, it is never taken for fetched. Walks and listings are for no item.
 */
export const JOB_ITEM: Partial<Record<JobKind, readonly [EntityKind, Dataset | null]>> = {
  fragranceProfile: ['fragrance', 'profile'],
  fragranceSimilar: ['fragrance', 'similar'],
  fragranceWearing: ['fragrance', 'wearing'],
  fragranceReviews: ['fragrance', 'reviews'],
  fragranceEnrich: ['fragrance', null],
  reviewDigest: ['fragrance', 'reviewDigest'],
  brand: ['brand', 'profile'],
  brandCatalogue: ['brand', 'catalogue'],
  perfumer: ['perfumer', 'profile'],
  note: ['note', 'profile'],
};
