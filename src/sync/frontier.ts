import { job, PRIORITY, specId, withPass } from '../../jobs/job-id.ts';
import type { JobMark, JobSpec, ReviewsResume } from '../../jobs/types.ts';
import { MAX_PAGE_SIZE } from '../domain/endpoints.ts';
import type { Objective } from '../config/index.ts';
import { enrichPays } from '../plan/cost-model.ts';
import type { Config } from '../config/index.ts';
import type { ProgressMark } from '../domain/items.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import { fullRule, type DueRule } from '../plan/freshness.ts';
import { itemKey, KeySets } from './key-sets.ts';
import { ListWatch } from './list-watch.ts';

const DATASETS: Dataset[] = ['profile', 'similar', 'wearing', 'reviews', 'reviewDigest', 'catalogue'];

/** Slug-style ids (one or two lowercase segments): the only ids enrich accepts. */
const SLUG_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)?$/;

/**
 * Fragrance and note list pages are asked for at the largest page size, 50; the service may
 * use a smaller one (pagination.limit), which page 1 records as the walk's page size.
 */
const WALK_PAGE_SIZE = MAX_PAGE_SIZE.listFragrances;

/**
 * What is still owed (by the due rule), and what a job's discoveries and signals add to it.
 * Discovery runs to a fixed point: every entity any response names gets its datasets fetched.
 */
export class Frontier {
  /** Keys per `${entity}|${dataset}` fetched since the cycle began (warehouse plus this run). */
  private readonly done = new KeySets();
  /** Keys per entity known to exist (warehouse plus this run's discoveries). */
  private readonly known = new KeySets();
  private readonly removed = new KeySets();
  /** Walk pages read in this cycle: `fragrances@3`. */
  private readonly pagesDone = new Set<string>();
  /** pagination.total seen on page 1 of each walk in this cycle. */
  private readonly walkTotals = new Map<string, { total: number; pageSize: number }>();
  /**
   * Jobs scheduled in this run, per kind: by the item they are for (the key string the
   * frontier already holds in `known`) or, for walks, by job id. Not a set of job ids: a 120k
   * catalogue schedules about half a million jobs, and their ids (kind and digest, about
   * 150 bytes each in V8) were the largest per-item state of the sync's heap.
   */
  private readonly scheduled = new KeySets();
  /** Nightly: items no run fetched yet (keys per entity); their jobs come first. */
  private readonly newItems = new KeySets();
  private readonly listWatch = new ListWatch();
  private readonly stale: ProgressMark[] = [];
  readonly cycleStart: string;
  readonly due: DueRule;

  constructor(
    state: SyncState,
    private readonly datasets: Config['datasets'],
    runStart: Date,
    private readonly reviewCounts: Map<string, number>,
    private readonly reviewTotals: Map<string, number>,
    private readonly objective: Objective = 'cents',
    private readonly similarCounts: Map<string, number> = new Map(),
    /** Review reads a stop cut short in this cycle, per fragrance (reviews-resume.ts). */
    private readonly reviewsResumes: Map<string, ReviewsResume> = new Map(),
    due?: DueRule,
  ) {
    this.cycleStart = state.cycleStart ?? runStart.toISOString();
    this.due = due ?? fullRule(this.cycleStart);
    for (const item of state.items) {
      if (item.removed) this.removed.add(item.entity, item.key);
      else this.known.add(item.entity, item.key);
      // Known but never fetched (an earlier run found it and stopped): still new.
      if (this.due.mode === 'nightly' && !item.removed && item.fetched.profile === undefined)
        this.newItems.add(item.entity, item.key);
      for (const ds of DATASETS) {
        if (!this.due.owed(item.entity, ds, item.key, item.fetched[ds]))
          this.done.add(`${item.entity}|${ds}`, item.key);
      }
    }
    // Walks find new and removed items cheaply: a backfill walks them again each new UTC day,
    // a nightly on every run (its only signals; else a second run that day finds nothing).
    const today = `${runStart.toISOString().slice(0, 10)}T00:00:00.000Z`;
    const since = today > this.cycleStart ? today : this.cycleStart;
    const walksSince = this.due.mode === 'nightly' ? runStart.toISOString() : since;
    for (const w of state.walks) {
      if (w.done && w.at >= walksSince) {
        this.pagesDone.add(w.walk);
        if (w.walk.endsWith('@1'))
          this.walkTotals.set(w.walk.slice(0, -2), {
            total: w.total,
            pageSize: w.pageSize ?? WALK_PAGE_SIZE,
          });
      }
    }
  }

  /**
   * The list walks again, as pass `pass` (2, 3, ... in one run): after a quota reset, a run
   * that waited through it reads the lists first, before the long tail of the backfill, so
   * items added upstream meanwhile are found (and fetched, at their usual priority) without
   * waiting for the backfill to end. Cheap: a 20k catalogue's list is 400 calls.
   */
  rewalk(pass: number): JobSpec[] {
    const d = this.datasets;
    const jobs: JobSpec[] = [];
    if (d.fragrances) jobs.push(job('fragrancesPage', withPass({ page: 1 }, pass), PRIORITY.walk));
    if (d.notes) jobs.push(job('notesPage', withPass({ page: 1 }, pass), PRIORITY.walk));
    if (d.accords) jobs.push(job('accords', withPass({}, pass), PRIORITY.walk));
    if (d.charts) jobs.push(job('charts', withPass({}, pass), PRIORITY.walk));
    return this.fresh(jobs);
  }

  /** The walks and every dataset the warehouse knows is owed in this cycle. */
  initialJobs(): JobSpec[] {
    const jobs: JobSpec[] = [];
    const d = this.datasets;
    if (d.fragrances)
      jobs.push(...this.walk('fragrances', (page) => job('fragrancesPage', { page }, PRIORITY.walk)));
    if (d.notes) jobs.push(...this.walk('notes', (page) => job('notesPage', { page }, PRIORITY.walk)));
    if (d.accords && !this.pagesDone.has('accords')) jobs.push(job('accords', {}, PRIORITY.walk));
    if (d.charts && !this.pagesDone.has('charts')) jobs.push(job('charts', {}, PRIORITY.walk));
    if (d.trending) jobs.push(job('trending', {}, PRIORITY.walk));
    for (const [entity, keys] of this.known.groups())
      for (const key of keys) jobs.push(...this.owed(entity as EntityKind, key));
    return this.fresh(jobs);
  }

  /**
   * Account for one job's marks; returns the jobs they make owed and the marks worth
   * persisting: an entity a job named becomes a `discovered` mark only if it was not known
   * (similar lists name known fragrances thousands of times).
   */
  absorb(progress: JobMark[]): { jobs: JobSpec[]; keep: ProgressMark[] } {
    const jobs: JobSpec[] = [];
    const keep: ProgressMark[] = [];
    /** A new fragrance whose profile this is: its brand has a new member. */
    let newMember: string | null = null;
    for (const mark of progress) {
      if (mark.kind === 'walk') {
        if (mark.done) this.pagesDone.add(mark.walk);
        keep.push(mark);
        this.listWatch.page(mark);
      } else if (mark.kind === 'fetched') {
        this.done.add(`${mark.entity}|${mark.dataset}`, mark.key);
        keep.push(mark);
        if (
          mark.entity === 'fragrance' &&
          mark.dataset === 'profile' &&
          this.newItems.has('fragrance', mark.key)
        )
          newMember = mark.key;
        // The profile opens the fragrance's other datasets: a removed one (404) costs one call.
        if (
          mark.entity === 'fragrance' &&
          mark.dataset === 'profile' &&
          !this.removed.has('fragrance', mark.key)
        ) {
          jobs.push(...this.owed('fragrance', mark.key));
        }
      } else {
        // A known brand gains a member: its catalogue is owed again (brand_fragrances).
        if (newMember !== null && mark.entity === 'brand')
          jobs.push(...this.signalled('brand', mark.keys, 'catalogue', PRIORITY.fresh));
        if (mark.entity === 'fragrance' && mark.source === 'list') this.listWatch.listed(mark.keys);
        // One set for the whole list: a similar list names 50 keys, nearly all known.
        const known = this.known.group(mark.entity);
        for (const key of mark.keys) {
          if (known.has(key)) continue;
          known.add(key);
          this.removed.delete(mark.entity, key);
          // In a nightly, what appears is new: it comes first, and completely.
          if (this.due.mode === 'nightly') this.newItems.add(mark.entity, key);
          keep.push({ kind: 'discovered', entity: mark.entity, key, source: mark.source });
          jobs.push(...this.owed(mark.entity, key));
        }
      }
    }
    // The whole list read in this run: a known fragrance it did not name may be gone. Its
    // profile says so for one cent (a 404), before any refresh.
    const missing = this.listWatch.missing(this.known.group('fragrance'));
    if (missing.length > 0) jobs.push(...this.signalled('fragrance', missing, 'profile', PRIORITY.fresh));
    return { jobs: this.fresh(jobs), keep };
  }

  /**
   * Something cheap said these items changed (a new member of a brand, a similar list naming
   * a removed fragrance, a fragrance missing from the list): `dataset` of each is owed again
   * whatever its age, ahead of the freshness policy's refreshes. Only a nightly needs it: a
   * full cycle fetches everything anyway.
   */
  signal(entity: EntityKind, keys: Iterable<string>, dataset: Dataset): JobSpec[] {
    return this.fresh(this.signalled(entity, keys, dataset));
  }

  private signalled(entity: EntityKind, keys: Iterable<string>, ds: Dataset, p: number = PRIORITY.signal) {
    if (this.due.mode !== 'nightly') return [];
    const jobs: JobSpec[] = [];
    for (const key of keys) {
      if (!this.known.has(entity, key)) continue;
      // Stored as owed (a capped run leaves it to the next one), and owed now at the signal's
      // priority, whether scheduled already (a refresh the gate holds) or not.
      if (this.done.has(`${entity}|${ds}`, key)) this.stale.push({ kind: 'stale', entity, key, dataset: ds });
      this.done.delete(`${entity}|${ds}`, key);
      const owed = this.owed(entity, key, p);
      for (const j of owed) this.scheduled.delete(j.kind, itemKey(j) ?? key);
      jobs.push(...owed);
    }
    return jobs;
  }

  /** The stale marks of the signals since the last call, to store with the job's results. */
  takeStale(): ProgressMark[] {
    return this.stale.splice(0);
  }

  /** Nightly: whether no run before this one fetched the item (it is new today). */
  isNew(entity: EntityKind, key: string): boolean {
    return this.newItems.has(entity, key);
  }

  markRemoved(entity: EntityKind, keys: string[]): void {
    for (const key of keys) {
      this.removed.add(entity, key);
      this.known.delete(entity, key);
    }
  }

  knownKeys(entity: EntityKind): string[] {
    return this.known.keys(entity);
  }

  /**
   * Page 1 learns the total and schedules the rest. When page 1 was read earlier in the
   * cycle (a resumed backfill), only the pages not yet read are owed.
   */
  private walk(name: string, make: (page: number) => JobSpec): JobSpec[] {
    const first = this.walkTotals.get(name);
    if (first === undefined) return [make(1)];
    // The page size page 1 was read at: the service's, not the one asked for.
    const pages = Math.max(1, Math.ceil(first.total / first.pageSize));
    const jobs: JobSpec[] = [];
    for (let page = 2; page <= pages; page++)
      if (!this.pagesDone.has(`${name}@${page}`)) jobs.push(make(page));
    return jobs;
  }

  private owed(entity: EntityKind, key: string, signal: number | null = null): JobSpec[] {
    const jobs = this.owedAt(entity, key);
    const first = this.newItems.has(entity, key) ? PRIORITY.fresh : signal;
    if (first !== null) for (const j of jobs) j.priority = first;
    return jobs;
  }

  private owedAt(entity: EntityKind, key: string): JobSpec[] {
    const d = this.datasets;
    const need = (ds: Dataset) => !this.done.has(`${entity}|${ds}`, key);
    switch (entity) {
      case 'fragrance': {
        if (d.fragrances && need('profile')) return [job('fragranceProfile', { id: key }, PRIORITY.profile)];
        const jobs: JobSpec[] = [];
        const viaEnrich = this.enrichPays(key, need('similar'), need('reviews'));
        if (viaEnrich) jobs.push(job('fragranceEnrich', { id: key }, PRIORITY.detail));
        if (d.similar && need('similar') && !viaEnrich)
          jobs.push(job('fragranceSimilar', { id: key }, PRIORITY.detail));
        if (d.wearing && need('wearing')) jobs.push(job('fragranceWearing', { id: key }, PRIORITY.detail));
        if (d.reviews.mode !== 'none' && need('reviews') && !viaEnrich) {
          const all = d.reviews.mode === 'all';
          const knownTotal = all ? (this.reviewTotals.get(key) ?? null) : null;
          const knownCount = all ? (this.reviewCounts.get(key) ?? null) : null;
          const resume = all ? this.reviewsResumes.get(key) : undefined;
          const payload = { id: key, knownTotal, knownCount, ...(resume ? { resume } : {}) };
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
        if (need('catalogue')) jobs.push(job('brandCatalogue', { slug: key }, PRIORITY.entity));
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

  /** Jobs handed back by a job (further pages): only those not scheduled in this run. */
  follow(jobs: JobSpec[]): JobSpec[] {
    return this.fresh(jobs);
  }

  /**
   * The cost model's rule (src/plan/cost-model.ts enrichPays): only under the calls objective,
   * only for slug-style ids (enrich takes no other), and only when the previous sync showed
   * both lists short enough for enrich's cap of 20.
   */
  private enrichPays(id: string, similar: boolean, reviews: boolean): boolean {
    const d = this.datasets;
    if (!similar || !reviews || !d.similar || d.reviews.mode !== 'all' || !SLUG_ID.test(id)) return false;
    const need = { profile: false, similar: true, wearing: false, reviewPages: 1, reviewDigest: false };
    const known = { similarCount: this.similarCounts.get(id), reviewTotal: this.reviewTotals.get(id) };
    return enrichPays(need, known, this.objective);
  }

  private fresh(jobs: JobSpec[]): JobSpec[] {
    return jobs.filter((j) => {
      const key = itemKey(j) ?? specId(j);
      if (this.scheduled.has(j.kind, key)) return false;
      this.scheduled.add(j.kind, key);
      return true;
    });
  }
}
