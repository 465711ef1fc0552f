import { describe, expect, it } from 'vitest';
import { job, PRIORITY } from '../../jobs/job-id.ts';
import { loadConfig } from '../../src/config/index.ts';
import { Frontier } from '../../src/sync/frontier.ts';
import { stillOwed } from '../../src/sync/owed-jobs.ts';
import { emptySyncState, type SyncState } from '../../src/warehouse/state-types.ts';

const config = loadConfig({ flags: {}, env: {} });
const start = new Date('2026-03-01T00:00:00Z');

function state(over: Partial<SyncState> = {}): SyncState {
  return {
    ...emptySyncState(),
    ...over,
  };
}

/** A full run's frontier over `s`, with no review counts. */
const frontierOf = (s: SyncState) => new Frontier(s, config.datasets, start, new Map(), new Map());

const kinds = (jobs: { kind: string }[]) => jobs.map((j) => j.kind).sort();

describe('Frontier', () => {
  it('starts an empty warehouse with the walks only', () => {
    const f = frontierOf(state());
    expect(kinds(f.initialJobs())).toEqual(['accords', 'charts', 'fragrancesPage', 'notesPage']);
  });

  it('opens a fragrance with its profile, and its other datasets once the profile is fetched', () => {
    const f = frontierOf(state());
    const first = f.absorb([{ kind: 'named', entity: 'fragrance', keys: ['a/b'], source: 'list' }]);
    expect(kinds(first.jobs)).toEqual(['fragranceProfile']);
    const second = f.absorb([
      { kind: 'fetched', entity: 'fragrance', key: 'a/b', dataset: 'profile' },
      { kind: 'named', entity: 'brand', keys: ['a'], source: 'profile' },
    ]);
    expect(kinds(second.jobs)).toEqual([
      'brand',
      'brandCatalogue',
      'fragranceReviews',
      'fragranceSimilar',
      'fragranceWearing',
    ]);
  });

  it('counts what this cycle read per fragrance dataset for the progress estimate (startingPoint)', () => {
    const cycleStart = '2026-02-28T00:00:00.000Z';
    const during = '2026-02-28T12:00:00.000Z';
    const before = '2026-02-01T00:00:00.000Z';
    const read = [
      ['fragrance', 'a', { profile: during, similar: during }],
      ['fragrance', 'b', { profile: during, similar: before }],
      ['fragrance', 'c', {}],
      ['brand', 'a', { profile: during }],
    ] as const;
    const items = read.map(([entity, key, fetched]) => {
      return { entity, key, firstSeen: cycleStart, fetched, lastChanged: null, removed: false };
    });
    const f = frontierOf(state({ cycleStart, items }));
    expect(f.startingPoint(['profile', 'similar', 'wearing'])).toEqual({
      read: { profile: 2, similar: 1, wearing: 0 },
      listTotal: null,
    });
  });

  it('drops discoveries of known entities (and does not persist them again)', () => {
    const f = frontierOf(state());
    f.absorb([{ kind: 'named', entity: 'fragrance', keys: ['x'], source: 'list' }]);
    const again = f.absorb([
      { kind: 'named', entity: 'fragrance', keys: ['x', 'y', 'x'], source: 'similar' },
    ]);
    expect(kinds(again.jobs)).toEqual(['fragranceProfile']);
    // Only the one new name is persisted, once, as the loader stores discoveries.
    expect(again.keep).toEqual([{ kind: 'discovered', entity: 'fragrance', key: 'y', source: 'similar' }]);
  });

  it('a removed fragrance (404 on its profile) opens nothing more', () => {
    const f = frontierOf(state());
    f.absorb([{ kind: 'named', entity: 'fragrance', keys: ['gone'], source: 'list' }]);
    f.markRemoved('fragrance', ['gone']);
    expect(
      f.absorb([{ kind: 'fetched', entity: 'fragrance', key: 'gone', dataset: 'profile' }]).jobs,
    ).toEqual([]);
  });

  it('resumes a walk at the page size the service used, recorded by page 1, not the one asked', () => {
    const at = '2026-02-28T01:00:00.000Z';
    const walks = (pageSize: number | null) => [
      { walk: 'fragrances@1', page: 1, total: 120, done: true, at, pageSize },
      { walk: 'fragrances@2', page: 2, total: 120, done: true, at, pageSize },
    ];
    const owedPages = (pageSize: number | null) =>
      new Frontier(
        state({ cycleStart: '2026-02-28T00:00:00.000Z', walks: walks(pageSize) }),
        config.datasets,
        new Date('2026-02-28T12:00:00Z'),
        new Map(),
        new Map(),
      )
        .initialJobs()
        .filter((j) => j.kind === 'fragrancesPage')
        .map((j) => (j.payload as { page: number }).page);
    expect(owedPages(20)).toEqual([3, 4, 5, 6]);
    // A walk an older version recorded (no page size) was read at 50.
    expect(owedPages(null)).toEqual([3]);
  });

  it('resumes an open cycle: only unread pages and unfetched datasets are owed', () => {
    const cycleStart = '2026-02-28T00:00:00.000Z';
    const at = '2026-02-28T01:00:00.000Z';
    const f = new Frontier(
      state({
        cycleStart,
        walks: [
          { walk: 'fragrances@1', page: 1, total: 120, done: true, at },
          { walk: 'fragrances@2', page: 2, total: 120, done: true, at },
          { walk: 'notes@1', page: 1, total: 10, done: true, at },
          { walk: 'accords', page: 2, total: 90, done: true, at },
          { walk: 'charts', page: 1, total: 3, done: true, at: '2026-02-01T00:00:00.000Z' },
        ],
        items: [
          {
            entity: 'fragrance',
            key: 'done',
            firstSeen: at,
            fetched: { profile: at, similar: at, wearing: at, reviews: at },
            lastChanged: null,
            removed: false,
          },
          {
            entity: 'fragrance',
            key: 'half',
            firstSeen: at,
            fetched: { profile: at, similar: at },
            lastChanged: null,
            removed: false,
          },
          {
            entity: 'fragrance',
            key: 'old',
            firstSeen: at,
            fetched: { profile: '2026-01-01T00:00:00.000Z' },
            lastChanged: null,
            removed: false,
          },
        ],
      }),
      config.datasets,
      new Date('2026-02-28T12:00:00Z'),
      new Map([['half', 7]]),
      new Map([['half', 7]]),
    );
    const jobs = f.initialJobs();
    const pages = jobs
      .filter((j) => j.kind === 'fragrancesPage')
      .map((j) => (j.payload as { page: number }).page);
    expect(pages).toEqual([3]);
    // charts were read before this cycle began: owed again; accords and notes are done.
    expect(
      kinds(
        jobs.filter(
          (j) =>
            !['fragranceProfile', 'fragranceReviews', 'fragranceWearing', 'fragrancesPage'].includes(j.kind),
        ),
      ),
    ).toEqual(['charts']);
    const reviews = jobs.find((j) => j.kind === 'fragranceReviews');
    // A full cycle reads every page again: no known total, so not the nightly's page-1 read.
    expect(reviews?.payload).toEqual({ id: 'half', knownTotal: null, knownCount: null });
    expect(
      jobs.some((j) => j.kind === 'fragranceWearing' && (j.payload as { id: string }).id === 'half'),
    ).toBe(true);
    expect(
      jobs.some((j) => j.kind === 'fragranceProfile' && (j.payload as { id: string }).id === 'old'),
    ).toBe(true);
    expect(jobs.some((j) => (j.payload as { id?: string }).id === 'done')).toBe(false);
  });

  it('walks the lists again on a new day of an open cycle, before the long tail', () => {
    const yesterday = '2026-02-28T10:00:00.000Z';
    const f = new Frontier(
      state({
        cycleStart: '2026-02-28T00:00:00.000Z',
        walks: [
          { walk: 'fragrances@1', page: 1, total: 60, done: true, at: yesterday },
          { walk: 'fragrances@2', page: 2, total: 60, done: true, at: yesterday },
          { walk: 'accords', page: 2, total: 90, done: true, at: yesterday },
        ],
      }),
      config.datasets,
      start,
      new Map(),
      new Map(),
    );
    const jobs = f.initialJobs();
    expect(
      jobs.filter((j) => j.kind === 'fragrancesPage').map((j) => (j.payload as { page: number }).page),
    ).toEqual([1]);
    expect(jobs.some((j) => j.kind === 'accords')).toBe(true);
    expect(Math.min(...jobs.map((j) => j.priority))).toBe(
      jobs.find((j) => j.kind === 'fragrancesPage')?.priority,
    );
  });

  it('schedules a job once per run, whatever names it', () => {
    const f = frontierOf(state());
    const a = f.follow([{ kind: 'fragrancesPage', payload: { page: 2 }, priority: 1 }]);
    const b = f.follow([{ kind: 'fragrancesPage', payload: { page: 2 }, priority: 1 }]);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(0);
  });
});

describe('stillOwed', () => {
  it("drops a job whose item's dataset was fetched since; keeps an enrich and a walk page", () => {
    const jobs = [
      job('fragranceProfile', { id: 'a/b' }, PRIORITY.profile),
      job('fragranceEnrich', { id: 'a/b' }, PRIORITY.detail),
      job('brandCatalogue', { slug: 'b' }, PRIORITY.entity),
      job('fragrancesPage', { page: 1 }, PRIORITY.walk),
    ];
    const asked: string[] = [];
    const kept = stillOwed(jobs, (entity, ds, key) => {
      asked.push(`${entity}|${ds}|${key}`);
      return true;
    });
    expect(kept.map((j) => j.kind)).toEqual(['fragranceEnrich', 'fragrancesPage']);
    expect(asked).toEqual(['fragrance|profile|a/b', 'brand|catalogue|b']);
  });
});
