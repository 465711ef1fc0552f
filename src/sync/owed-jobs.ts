import { job, PRIORITY } from '../../jobs/job-id.ts';
import type { JobSpec } from '../../jobs/types.ts';
import type { Config, Objective } from '../config/index.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import { enrichFits } from '../plan/cost-model.ts';
import { JOB_ITEM } from './job-item.ts';
import { itemKey } from './key-sets.ts';
import type { Resumes } from './resume.ts';

/** What the frontier knows that shapes an item's jobs. */
export interface OwedContext {
  readonly datasets: Config['datasets'];
  readonly reviewCounts: Map<string, number>;
  readonly reviewTotals: Map<string, number>;
  readonly objective: Objective;
  readonly similarCounts: Map<string, number>;
  readonly resumes: Resumes;
  /** full: every review page is read again (`--full` repairs); nightly: only the new ones. */
  readonly due: { readonly mode: 'full' | 'nightly' };
}

/**
 * The jobs of one item whose datasets `need` says are owed: a fragrance's profile first (what
 * it names opens the rest), then its details (one enrich call where it is cheaper).
 */
export function owedJobs(
  entity: EntityKind,
  key: string,
  f: OwedContext,
  need: (ds: Dataset) => boolean,
): JobSpec[] {
  const d = f.datasets;
  switch (entity) {
    case 'fragrance': {
      if (d.fragrances && need('profile')) return [job('fragranceProfile', { id: key }, PRIORITY.profile)];
      const jobs: JobSpec[] = [];
      const known = { similarCount: f.similarCounts.get(key), reviewTotal: f.reviewTotals.get(key) };
      const viaEnrich = enrichFits(d, key, need('similar') && need('reviews'), known, f.objective);
      if (viaEnrich) jobs.push(job('fragranceEnrich', { id: key }, PRIORITY.detail));
      if (d.similar && need('similar') && !viaEnrich)
        jobs.push(job('fragranceSimilar', { id: key }, PRIORITY.detail));
      if (d.wearing && need('wearing')) jobs.push(job('fragranceWearing', { id: key }, PRIORITY.detail));
      if (d.reviews.mode !== 'none' && need('reviews') && !viaEnrich) {
        const all = d.reviews.mode === 'all';
        // Known totals make the read incremental (page 1 only): a nightly's, never a full
        // sync's, which reads every page again so that it repairs whatever the mirror holds.
        const incremental = all && f.due.mode === 'nightly';
        const knownTotal = incremental ? (f.reviewTotals.get(key) ?? null) : null;
        const knownCount = incremental ? (f.reviewCounts.get(key) ?? null) : null;
        const payload = { id: key, knownTotal, knownCount, ...(all ? f.resumes.review(key) : {}) };
        jobs.push(job('fragranceReviews', payload, PRIORITY.detail));
      }
      if (d.reviewDigest && need('reviewDigest'))
        jobs.push(job('reviewDigest', { id: key }, PRIORITY.optional));
      return jobs;
    }
    case 'brand': {
      if (!d.brands) return [];
      const jobs: JobSpec[] = [];
      if (need('profile')) jobs.push(job('brand', { slug: key }, PRIORITY.entity));
      if (need('catalogue')) jobs.push(job('brandCatalogue', f.resumes.catalogue(key), PRIORITY.entity));
      return jobs;
    }
    case 'perfumer':
      return d.perfumers && need('profile') ? [job('perfumer', { slug: key }, PRIORITY.entity)] : [];
    case 'note':
      return d.notes && need('profile') ? [job('note', { slug: key }, PRIORITY.entity)] : [];
    case 'chart':
      return d.charts && need('profile') ? [job('chart', { slug: key }, PRIORITY.entity)] : [];
    case 'accord':
      return [];
  }
}

/**
 * Of jobs owed a while ago, those whose dataset `fetched` does not say was fetched since:
 * what an earlier run's reports make owed before the run plans (FetchStage.fetch), since
 * they come in any order (a walk page naming a fragrance before that fragrance's profile).
 */
export function stillOwed(
  jobs: JobSpec[],
  fetched: (entity: EntityKind, ds: Dataset, key: string) => boolean,
): JobSpec[] {
  return jobs.filter((j) => {
    const [entity, ds] = JOB_ITEM[j.kind] ?? [];
    const key = itemKey(j);
    return entity === undefined || !ds || key === undefined || !fetched(entity, ds, key);
  });
}
