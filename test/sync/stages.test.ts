import { existsSync } from 'node:fs';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { job, PRIORITY } from '../../jobs/job-id.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createMemoryGovernor } from '../../src/governor/index.ts';
import type { JobOutcome, QueueDriver, QueuedJob } from '../../src/queue/types.ts';
import { emptyFetchResult, type FetchResult } from '../../src/sync/fetch-result.ts';
import { FetchStage } from '../../src/sync/fetch-stage.ts';
import { listRemovals, runStatus } from '../../src/sync/finish.ts';
import { LoadStage } from '../../src/sync/load-stage.ts';
import { openRun, planRun } from '../../src/sync/open-run.ts';
import { governorLimits } from '../../src/sync/runtime.ts';
import type { DriverContext, OpenRun } from '../../src/sync/types.ts';
import type { LoadItem } from '../../src/domain/items.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { tempDir } from '../helpers/tmp.ts';

/** Each stage of runSync on its own: open and plan on a real DuckDB file, fetch with a scripted driver. */

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir('fragsync-stages-');
});
afterEach(() => dir.cleanup());

const log = pino({ level: 'silent' });
const configFor = (db: string, flags: Record<string, string | boolean> = {}) =>
  loadConfig({
    flags: { 'base-url': 'http://127.0.0.1:9', db, ...flags },
    env: { FRAGSYNC_API_KEY: 'k' },
  });

const fetched = (over: Partial<FetchResult> = {}): FetchResult => ({ ...emptyFetchResult(), ...over });

describe('finish: run status and list removals', () => {
  it('names a stop, then a quota pause not waited through, then failures, else completed', () => {
    const stop = { reason: 'budget_exhausted' as const, message: 'cap' };
    const paused = new Date();
    expect(runStatus(fetched({ stop, transientFailures: 2 }), paused, false)).toBe('budget_exhausted');
    expect(runStatus(fetched({ transientFailures: 2 }), paused, false)).toBe('quota_exhausted');
    expect(runStatus(fetched({ transientFailures: 2 }), paused, true)).toBe('failed');
    expect(runStatus(fetched({ terminalFailures: 3 }), null, true)).toBe('completed');
    // A bug is reported as one whatever the service did, and never as the service's failure.
    expect(runStatus(fetched({ internalFailures: 1, transientFailures: 2 }), paused, false)).toBe(
      'internal_error',
    );
  });

  it('removes what a complete listing no longer names, and nothing of a list not read', () => {
    const frontier = { knownKeys: (e: string) => (e === 'accord' ? ['a', 'b', 'c'] : ['x', 'y']) };
    expect(listRemovals(frontier, { accord: new Set(['a', 'c']), chart: null })).toEqual([
      { kind: 'removal', entity: 'accord', keys: ['b'] },
    ]);
    expect(listRemovals(frontier, { accord: new Set(['a', 'b', 'c']), chart: new Set() })).toEqual([
      { kind: 'removal', entity: 'chart', keys: ['x', 'y'] },
    ]);
  });
});

describe('open and plan', () => {
  it('refuses to start without the service address, before the warehouse is created', async () => {
    const db = `${dir.path}/none.duckdb`;
    const config = loadConfig({ flags: { db }, env: { FRAGSYNC_API_KEY: 'k' } });
    const governor = createMemoryGovernor(governorLimits(config));
    await expect(openRun({ config, log, governor })).rejects.toThrow(/baseUrl is required/);
    expect(existsSync(db)).toBe(false);
  });

  it('records runs left running as died (with why, no exit code), starts its own, seeds the governor with today', async () => {
    const db = `${dir.path}/w.duckdb`;
    const today = new Date();
    const wh = await Warehouse.open(db);
    await wh.startRun('old', new Date(today.getTime() - 60_000));
    await wh.load({
      runId: 'old',
      items: [
        {
          kind: 'apiCall',
          at: today.toISOString(),
          method: 'GET',
          endpoint: '/v1/notes',
          status: 200,
          costCents: 7,
          quotaRemaining: 5,
        },
      ],
      progress: [],
    });
    await wh.close();
    const config = configFor(db, { 'max-cents-per-day': '10' });
    const governor = createMemoryGovernor(governorLimits(config));
    const run = await openRun({ config, log, governor });
    try {
      const runs = await run.warehouse.query<{ run_id: string; status: string }>(
        'SELECT run_id, status FROM sync_runs ORDER BY started_at',
      );
      expect(runs).toEqual([
        { run_id: 'old', status: 'died' },
        { run_id: run.runId, status: 'running' },
      ]);
      const [death] = await run.warehouse.query<Record<string, unknown>>(
        "SELECT found_by, reason, last_call_at IS NOT NULL AS has_last FROM sync_run_deaths WHERE run_id = 'old'",
      );
      expect(death).toMatchObject({ found_by: run.runId, has_last: true });
      expect(death!.reason).toMatch(/ended without closing the run/);
      // 7 of the day's 10 cents were spent: a 2-cent call fits, a second one no longer does.
      expect((await governor.admit('getSimilar')).ok).toBe(true);
      const refused = await governor.admit('getSimilar');
      expect(refused.ok ? null : refused.reason).toBe('day_budget');
      // An empty warehouse owes the walks first.
      const frontier = await planRun(run, config);
      expect(frontier.initialJobs().map((j) => j.kind)).toContain('fragrancesPage');
    } finally {
      await run.warehouse.close();
      run.writer?.release();
      await governor.close();
    }
  });
});

/** A driver that runs nothing: the test plays the outcomes a real one would report. */
class ScriptedDriver implements QueueDriver {
  readonly name = 'memory' as const;
  submitted: QueuedJob[] = [];
  stopped = false;
  constructor(
    private readonly play: (ctx: DriverContext, d: ScriptedDriver) => Promise<void>,
    /** What an earlier run left to report, played before the run plans (QueueDriver.earlierReports). */
    private readonly earlier?: (ctx: DriverContext) => Promise<void>,
  ) {}
  ctx: DriverContext | null = null;
  async earlierReports() {
    await this.earlier?.(this.ctx as DriverContext);
  }
  async submit(jobs: QueuedJob[]) {
    this.submitted.push(...jobs);
  }
  async idle() {
    await this.play(this.ctx as DriverContext, this);
  }
  async stop() {
    this.stopped = true;
  }
  pausedUntil() {
    return null;
  }
  async resume() {}
  async counts() {
    return { waiting: 0, active: 0, delayed: 0 };
  }
  async close() {}
}

describe('fetch', () => {
  async function stage(
    play: (ctx: DriverContext, d: ScriptedDriver) => Promise<void>,
    opts: { earlier?: (ctx: DriverContext) => Promise<void>; seed?: (w: Warehouse) => Promise<void> } = {},
  ) {
    const db = `${dir.path}/f.duckdb`;
    const config = configFor(db);
    const warehouse = await Warehouse.open(db);
    await opts.seed?.(warehouse);
    const started = new Date();
    await warehouse.startRun('r1', started);
    const state = await warehouse.syncState();
    const caps = { maxCents: null, dayCentsLeft: null };
    const run: OpenRun = { runId: 'r1', started, log, warehouse, writer: null, mode: 'full', state, caps };
    const frontier = await planRun(run, config);
    const load = new LoadStage(warehouse, db, run.runId, { batchItems: 100, flushMs: 50, log });
    const fetch = new FetchStage(run, config, frontier, load);
    const driver = new ScriptedDriver(play, opts.earlier);
    driver.ctx = fetch.driverContext({} as never);
    const result = await fetch.fetch(driver);
    await load.close();
    return { result, driver, warehouse, frontier };
  }
  const call = {
    kind: 'apiCall' as const,
    at: new Date().toISOString(),
    method: 'GET' as const,
    status: 200,
  };

  it('loads a job’s rows and marks, and submits what its discoveries make owed', async () => {
    const page = { id: 'p', runId: 'r1', spec: job('fragrancesPage', { page: 1 }, PRIORITY.walk) };
    const { result, driver, warehouse } = await stage(async (ctx) => {
      await ctx.onOutcome({
        type: 'done',
        job: page,
        result: {
          items: [{ kind: 'fragranceSummary', id: 'a/b', name: 'AB', brand: 'A' }],
          progress: [
            { kind: 'walk', walk: 'fragrances@1', page: 1, total: 1, done: true },
            { kind: 'named', entity: 'fragrance', keys: ['a/b'], source: 'list' },
          ],
          follow: [],
        },
        calls: [{ ...call, endpoint: '/v1/fragrances', costCents: 1, quotaRemaining: 9 }],
      });
    });
    expect(result).toEqual(fetched());
    expect(driver.submitted.map((j) => j.spec.kind)).toContain('fragranceProfile');
    expect(await warehouse.query('SELECT id, name FROM fragrances')).toEqual([{ id: 'a/b', name: 'AB' }]);
    expect(await warehouse.query("SELECT count(*)::INTEGER AS n FROM api_calls WHERE run_id = 'r1'")).toEqual(
      [{ n: 1 }],
    );
    await warehouse.close();
  });

  it('counts failures by kind, quarantines them, and stops the driver on a stop', async () => {
    const q = (id: string): QueuedJob => ({
      id,
      runId: 'r1',
      spec: job('note', { slug: id }, PRIORITY.entity),
    });
    const outcomes: JobOutcome[] = [
      { type: 'failed', job: q('n1'), reason: 'reset', code: 'NETWORK', calls: [] },
      { type: 'failed', job: q('n2'), reason: '418', code: 'API_CLIENT_ERROR', calls: [] },
      { type: 'failed', job: q('n4'), reason: 'x is undefined', code: 'INTERNAL', calls: [] },
      { type: 'stop', job: q('n3'), reason: 'budget_exhausted', message: 'cap reached', calls: [] },
    ];
    const { result, driver, warehouse } = await stage(async (ctx) => {
      for (const o of outcomes) await ctx.onOutcome(o);
    });
    expect(result.transientFailures).toBe(1);
    expect(result.firstFailure).toBe('reset');
    expect(result.terminalFailures).toBe(1);
    expect(result.internalFailures).toBe(1);
    expect(result.firstInternal).toBe('x is undefined');
    expect(result.stop).toEqual({ reason: 'budget_exhausted', message: 'cap reached' });
    expect(driver.stopped).toBe(true);
    expect(await warehouse.query('SELECT key FROM quarantine ORDER BY key')).toEqual([
      { key: 'n1' },
      { key: 'n2' },
      { key: 'n4' },
    ]);
    await warehouse.close();
  });

  it('keeps the latest complete listing of accords and charts: one whose walk is not done replaces nothing', async () => {
    const q = (kind: 'accords' | 'charts', pass?: number): QueuedJob => ({
      id: `${kind}${pass ?? 1}`,
      runId: 'r1',
      spec: job(kind, pass ? { pass } : {}, PRIORITY.walk),
    });
    const done = (j: QueuedJob, items: LoadItem[], complete = true): JobOutcome => ({
      type: 'done',
      job: j,
      result: {
        items,
        progress: [{ kind: 'walk', walk: j.spec.kind, page: 1, total: items.length, done: complete }],
        follow: [],
      },
      calls: [],
    });
    const accord = (slug: string): LoadItem => ({ kind: 'accord', slug, name: slug });
    const { result, warehouse } = await stage(async (ctx) => {
      await ctx.onOutcome(done(q('accords'), [accord('old')]));
      await ctx.onOutcome(done(q('accords', 2), [accord('new'), accord('kept')]));
      // A third pass whose pages did not line up (the list moved): not the whole list, so
      // 'kept', which it does not name, must not be removed on its account.
      await ctx.onOutcome(done(q('accords', 3), [accord('new')], false));
      await ctx.onOutcome(done(q('charts'), [{ kind: 'chart', slug: 'top', title: 'Top' }]));
    });
    expect(result.listed.accord).toEqual(new Set(['new', 'kept']));
    expect(result.listed.chart).toEqual(new Set(['top']));
    await warehouse.close();
  });

  it("absorbs an earlier run's reports before it plans: their results are not owed again, what they make owed is submitted", async () => {
    // A fragrance an earlier run found; its profile, fetched by that run's worker, was left
    // in the load queue when the run was killed.
    const seed = async (w: Warehouse) => {
      await w.startRun('old', new Date(Date.now() - 60_000));
      await w.load({
        runId: 'old',
        items: [{ kind: 'fragranceSummary', id: 'a/b', name: 'AB', brand: 'A' }],
        progress: [{ kind: 'discovered', entity: 'fragrance', key: 'a/b', source: 'list' }],
      });
    };
    const profile: QueuedJob = {
      id: 'prof',
      runId: 'old',
      spec: job('fragranceProfile', { id: 'a/b' }, PRIORITY.entity),
    };
    const earlier = async (ctx: DriverContext) => {
      await ctx.onOutcome({
        type: 'done',
        job: profile,
        result: {
          items: [],
          progress: [{ kind: 'fetched', entity: 'fragrance', key: 'a/b', dataset: 'profile' }],
          follow: [],
        },
        calls: [{ ...call, endpoint: '/v1/fragrances/{id}', costCents: 1, quotaRemaining: 9 }],
      });
    };
    // Without the earlier run's report, the plan owes the profile.
    const before = await stage(async () => {}, { seed });
    expect(before.driver.submitted.map((j) => j.spec.kind)).toContain('fragranceProfile');
    await before.warehouse.close();
    await dir.cleanup();
    dir = await tempDir('fragsync-stages-');

    const { driver, warehouse } = await stage(async () => {}, { seed, earlier });
    const kinds = driver.submitted.map((j) => j.spec.kind);
    expect(kinds).not.toContain('fragranceProfile');
    // The datasets the profile opens reached the driver (not only the admission window).
    expect(kinds).toContain('fragranceSimilar');
    expect(driver.submitted.every((j) => j.runId === 'r1')).toBe(true);
    await warehouse.close();
  });
});
