import { job, PRIORITY, specId, withPass } from '../../jobs/job-id.ts';
import type { JobMark, JobSpec } from '../../jobs/types.ts';
import { MAX_PAGE_SIZE } from '../domain/endpoints.ts';
import type { Config, Objective } from '../config/index.ts';
import type { ProgressMark } from '../domain/items.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import type { Dataset, EntityKind } from '../domain/entities.ts';
import { fullRule, type DueRule } from '../plan/freshness.ts';
import { serviceClock, type ServiceClock } from '../warehouse/service-clock.ts';
import { ENTITIES, itemKey, KeyBits, KNOWN, NEW, REMOVED, scheduledGroup } from './key-sets.ts';
import { ListWatch } from './list-watch.ts';
import { DueRanking } from './rank.ts';
import { Resumes } from './resume.ts';
import { owedJobs, stillOwed } from './owed-jobs.ts';
import { walksCounted } from './walk-day.ts';

const DATASETS: Dataset[] = ['profile', 'similar', 'wearing', 'reviews', 'reviewDigest', 'catalogue'];
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
  /**
   * The per-item state, one map entry per item (src/sync/key-sets.ts), by group:
   * `${entity}|${dataset}` fetched since the cycle began (warehouse plus this run);
   * `${entity}|:known` known to exist (warehouse plus this run's discoveries), `|:removed`;
   * `|:new` (nightly: no run fetched it yet, its jobs come first); `fragrance|:listed` (named
   * by the list in this run, ListWatch); `|@${kind}` a job of that kind scheduled in this run.
   */
  private readonly bits = new KeyBits();
  /** Walk pages read in this cycle: `fragrances@3`. */
  private readonly pagesDone = new Set<string>();
  /** pagination.total seen on page 1 of each walk in this cycle. */
  private readonly walkTotals = new Map<string, { total: number; pageSize: number }>();
  private readonly listWatch = new ListWatch({
    add: (key) => this.bits.add('fragrance|:listed', key),
    has: (key) => this.bits.has('fragrance|:listed', key),
  });
  private readonly stale: ProgressMark[] = [];
  readonly cycleStart: string;
  /** The due rule; a nightly's is judged again on the service's clock after the walks (retime). */
  due: DueRule;
  private readonly items: SyncState['items'];
  /** Stored fetch times on the service's clock (each run's recorded offset): what retime judges by. */
  readonly clock: ServiceClock;
  /** The service's day the lists counted as read were last read on (walk-day.ts), or null. */
  readonly walksReadOn: string | null;
  /** A nightly's order of due refreshes: charted and trending first, then age × popularity. */
  private readonly ranking: DueRanking;

  /** Signal priority per `entity|key`, for the jobs its profile opens. */
  private readonly urgent = new Map<string, number>();
  constructor(
    state: SyncState,
    readonly datasets: Config['datasets'],
    runStart: Date,
    readonly reviewCounts: Map<string, number>,
    readonly reviewTotals: Map<string, number>,
    readonly objective: Objective = 'cents',
    readonly similarCounts: Map<string, number> = new Map(),
    readonly resumes: Resumes = new Resumes(), // reads a stop cut short this cycle
    due?: DueRule,
  ) {
    this.cycleStart = state.cycleStart ?? runStart.toISOString();
    this.due = due ?? fullRule(this.cycleStart);
    this.ranking = new DueRanking(state, datasets, this.due, runStart);
    this.items = state.items;
    this.clock = serviceClock(state.clocks);
    for (const item of state.items) {
      if (item.removed) this.bits.add(REMOVED[item.entity], item.key);
      else this.bits.add(KNOWN[item.entity], item.key);
      // Known but never fetched (an earlier run found it and stopped): still new.
      if (this.due.mode === 'nightly' && !item.removed && item.fetched.profile === undefined)
        this.bits.add(NEW[item.entity], item.key);
      for (const ds of DATASETS) {
        if (!this.due.owed(item.entity, ds, item.key, item.fetched[ds]))
          this.bits.add(`${item.entity}|${ds}`, item.key);
      }
    }
    // Walks find new and removed items cheaply: a backfill reads them each new day, a nightly each run.
    const walks = walksCounted(state.walks, runStart, this);
    this.walksReadOn = walks.readOn;
    for (const w of walks.done) {
      this.pagesDone.add(w.walk);
      if (w.walk.endsWith('@1'))
        this.walkTotals.set(w.walk.slice(0, -2), { total: w.total, pageSize: w.pageSize ?? WALK_PAGE_SIZE });
    }
  }

  /**
   * The list walks again, as pass `pass` (2, 3, ...): after a quota reset, a run that waited
   * reads the lists before the backfill's long tail, so items added meanwhile are found
   * without waiting for it to end. Cheap: a 20k catalogue's list is 400 calls.
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
    if (d.accords && !this.pagesDone.has('accords'))
      jobs.push(job('accords', this.resumes.accords(), PRIORITY.walk));
    if (d.charts && !this.pagesDone.has('charts')) jobs.push(job('charts', {}, PRIORITY.walk));
    if (d.trending) jobs.push(job('trending', {}, PRIORITY.walk));
    for (const entity of ENTITIES)
      for (const key of this.bits.keys(KNOWN[entity])) jobs.push(...this.owed(entity, key));
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
        this.bits.add(`${mark.entity}|${mark.dataset}`, mark.key);
        this.bits.add(`${mark.entity}|:read-${mark.dataset}`, mark.key);
        keep.push(mark);
        if (
          mark.entity === 'fragrance' &&
          mark.dataset === 'profile' &&
          this.bits.has(NEW.fragrance, mark.key)
        )
          newMember = mark.key;
        // The profile opens the fragrance's other datasets: a removed one (404) costs one call.
        if (
          mark.entity === 'fragrance' &&
          mark.dataset === 'profile' &&
          !this.bits.has(REMOVED.fragrance, mark.key)
        ) {
          jobs.push(...this.owed('fragrance', mark.key));
        }
      } else {
        if (mark.entity === 'fragrance' && (mark.source === 'chart' || mark.source === 'trending'))
          this.ranking.markHot(mark.keys);
        // A known brand gains a member: its catalogue is owed again (brand_fragrances).
        if (newMember !== null && mark.entity === 'brand')
          jobs.push(...this.signalled('brand', mark.keys, 'catalogue', PRIORITY.fresh));
        if (mark.entity === 'fragrance' && mark.source === 'list') this.listWatch.listed(mark.keys);
        const known = KNOWN[mark.entity];
        for (const key of mark.keys) {
          if (this.bits.has(known, key)) continue;
          this.bits.add(known, key);
          this.bits.delete(REMOVED[mark.entity], key);
          // In a nightly, what appears is new: it comes first, and completely.
          if (this.due.mode === 'nightly') this.bits.add(NEW[mark.entity], key);
          keep.push({ kind: 'discovered', entity: mark.entity, key, source: mark.source });
          jobs.push(...this.owed(mark.entity, key));
        }
      }
    }
    // The whole list read in this run: a known fragrance it did not name may be gone. Its
    // profile says so for one cent (a 404), before any refresh.
    const missing = this.listWatch.missing(() => this.bits.keys(KNOWN.fragrance));
    if (missing.length > 0) jobs.push(...this.signalled('fragrance', missing, 'profile', PRIORITY.fresh));
    return { jobs: this.fresh(jobs), keep };
  }

  /**
   * Something cheap said these items changed (a new member of a brand, a similar list naming
   * a removed fragrance, a fragrance missing from the list): `dataset` of each is owed again
   * whatever its age, ahead of the due refreshes. A full run: only lists naming a removed one.
   */
  signal(entity: EntityKind, keys: Iterable<string>, ds: Dataset, p: number = PRIORITY.signal): JobSpec[] {
    return this.fresh(this.signalled(entity, keys, ds, p));
  }

  private signalled(entity: EntityKind, keys: Iterable<string>, ds: Dataset, p: number = PRIORITY.signal) {
    if (this.due.mode !== 'nightly' && ds !== 'similar') return [];
    const jobs: JobSpec[] = [];
    for (const key of keys) {
      if (!this.bits.has(KNOWN[entity], key)) continue;
      // Read in this run already, on the day the signal is about: a second signal for it has
      // nothing left to buy. Marked stale, it stayed never fetched (its job id was taken) and
      // the next nightly bought it again the same service day.
      if (this.bits.has(`${entity}|:read-${ds}`, key)) continue;
      this.urgent.set(`${entity}|${key}`, Math.min(p, this.urgent.get(`${entity}|${key}`) ?? p));
      // Stored as owed (a capped run leaves it to the next one), and owed now at the signal's
      // priority, whether scheduled already (a refresh the gate holds) or not.
      if (this.bits.has(`${entity}|${ds}`, key)) this.stale.push({ kind: 'stale', entity, key, dataset: ds });
      this.bits.delete(`${entity}|${ds}`, key);
      const owed = this.owed(entity, key, p);
      for (const j of owed) this.bits.delete(scheduledGroup(j.kind), itemKey(j) ?? key);
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
    return this.bits.has(NEW[entity], key);
  }

  /** Nightly: fragrances a backfill found after its first service day (late-new.ts): new, profile first. */
  markNew(keys: string[]): void {
    for (const key of keys) this.bits.add(NEW.fragrance, key);
    for (const key of keys) this.bits.delete('fragrance|profile', key);
  }

  markRemoved(entity: EntityKind, keys: string[]): void {
    for (const key of keys) {
      this.bits.add(REMOVED[entity], key);
      this.bits.delete(KNOWN[entity], key);
    }
  }

  knownKeys(entity: EntityKind): string[] {
    return this.bits.keys(KNOWN[entity]);
  }

  /** For the progress estimate (call-estimate.ts), once: fragrances this cycle read per dataset, the list's total. */
  startingPoint(datasets: readonly Dataset[]) {
    const read = Object.fromEntries(datasets.map((ds) => [ds, this.bits.count(`fragrance|${ds}`)]));
    return { read, listTotal: this.walkTotals.get('fragrances')?.total ?? null };
  }

  /** Page 1 learns the total and schedules the rest; after it (a resumed backfill), the pages not read. */
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
    // Charts are read among the signals: what is on them goes first of the due refreshes. A
    // signal owed before the profile was read keeps its priority for what the profile opens.
    const chart = entity === 'chart' && this.due.mode === 'nightly' ? PRIORITY.signal : null;
    const urgent = this.urgent.get(`${entity}|${key}`) ?? null;
    const first = this.bits.has(NEW[entity], key) ? PRIORITY.fresh : (signal ?? urgent ?? chart);
    for (const j of jobs) j.priority = first ?? this.ranking.priorityOf(j) ?? j.priority;
    return jobs;
  }

  /**
   * A nightly judges ages once the walks have told the service's clock (the gate asks as they
   * end, before any due refresh is let out; until then its rule owes only what was never
   * fetched, src/sync/open-run.ts): `due` is the rule at the run's start on that clock, `now`.
   * Returns what it owes besides; a job already owed stays owed.
   */
  retime(due: DueRule, now: Date): JobSpec[] {
    if (this.due.mode !== 'nightly' || due.mode !== 'nightly') return [];
    this.due = due;
    this.ranking.rescore(due, now);
    const jobs: JobSpec[] = [];
    for (const { entity, key, fetched } of this.items) {
      if (this.bits.has(REMOVED[entity], key)) continue;
      // Not what this run read (a quarantined record's fetch is forgotten: sync-state.ts).
      const held = (ds: Dataset) =>
        this.bits.has(`${entity}|${ds}`, key) && !this.bits.has(`${entity}|:read-${ds}`, key);
      const now = DATASETS.filter((ds) => held(ds) && due.owed(entity, ds, key, fetched[ds]));
      for (const ds of now) this.bits.delete(`${entity}|${ds}`, key);
      if (now.length > 0) jobs.push(...this.owed(entity, key));
    }
    return this.fresh(jobs);
  }

  /** Orders the due refreshes the gate holds (src/sync/rank.ts), when the signals are done. */
  rank(held: JobSpec[]): void {
    this.ranking.rank(held);
  }

  private owedAt(entity: EntityKind, key: string): JobSpec[] {
    return owedJobs(entity, key, this, (ds) => !this.bits.has(`${entity}|${ds}`, key));
  }

  /** Of `jobs` (owed earlier), those whose dataset was not fetched since (owed-jobs.ts). */
  stillOwed(jobs: JobSpec[]): JobSpec[] {
    return stillOwed(jobs, (entity, ds, key) => this.bits.has(`${entity}|${ds}`, key));
  }

  /** Jobs handed back by a job (further pages): only those not scheduled in this run. */
  follow = (jobs: JobSpec[]): JobSpec[] => this.fresh(jobs);

  private fresh(jobs: JobSpec[]): JobSpec[] {
    return jobs.filter((j) => {
      const key = itemKey(j) ?? specId(j);
      const group = scheduledGroup(j.kind);
      if (this.bits.has(group, key)) return false;
      this.bits.add(group, key);
      return true;
    });
  }
}
