import { accords } from './accords.ts';
import { batch } from './batch.ts';
import { brandCatalogue } from './brand-catalogue.ts';
import { brand } from './brand.ts';
import { chart } from './chart.ts';
import { charts } from './charts.ts';
import { fragranceEnrich } from './fragrance-enrich.ts';
import { fragranceProfile } from './fragrance-profile.ts';
import { fragranceReviews } from './fragrance-reviews.ts';
import { fragranceSimilar } from './fragrance-similar.ts';
import { fragranceWearing } from './fragrance-wearing.ts';
import { fragrancesPage } from './fragrances-page.ts';
import { note } from './note.ts';
import { notesPage } from './notes-page.ts';
import { perfumer } from './perfumer.ts';
import { reviewDigest } from './review-digest.ts';
import { trending } from './trending.ts';
import type { JobContext, JobKind, JobPayloads, JobResult, Processor } from './types.ts';

/** One processor per kind of job; both queue drivers dispatch through this table. */
export const PROCESSORS: { [K in JobKind]: Processor<K> } = {
  fragrancesPage,
  notesPage,
  accords,
  charts,
  chart,
  trending,
  fragranceProfile,
  fragranceSimilar,
  fragranceWearing,
  fragranceReviews,
  reviewDigest,
  fragranceEnrich,
  brand,
  brandCatalogue,
  perfumer,
  note,
  batch,
};

export function runJob(ctx: JobContext, kind: JobKind, payload: JobPayloads[JobKind]): Promise<JobResult> {
  const processor = PROCESSORS[kind] as Processor<JobKind>;
  return processor(ctx, payload);
}

export type { JobContext, JobKind, JobPayloads, JobResult, JobSpec, JobSettings } from './types.ts';
