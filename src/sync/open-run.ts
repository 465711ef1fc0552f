import type { Config } from '../config/index.ts';
import type { Logger } from 'pino';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { Journal, journalMark } from '../warehouse/journal.ts';
import { unansweredCalls } from '../warehouse/sent-calls.ts';
import { serviceClock, serviceDay } from '../warehouse/service-clock.ts';
import type { SyncState } from '../warehouse/state-types.ts';
import { nightlyRule, policyRows, type SyncMode } from '../plan/freshness.ts';
import { Frontier } from './frontier.ts';
import { loadResumes } from './resume.ts';
import { lateNew } from './late-new.ts';
import type { OpenRun, SyncDeps } from './types.ts';
import { stageMark } from './stage-marks.ts';
import { openWarehouse } from './open-warehouse.ts';
import { closeDeadRuns } from './dead-runs.ts';
import { sqlFile } from '../warehouse/sql-files.ts';

/**
 * The open stage: everything a run does before it may send a request. The service address
 * and the key are checked first (nothing is opened without them); then the warehouse is
 * opened (open-warehouse.ts; `fragsync sync` starts that earlier, deps.opening), what a
 * killed run journaled is replayed, runs left 'running' (their process is gone) are recorded
 * as died (dead-runs.ts), this run's row is started and the governor learns today's spend from the
 * ledger, so a restart never forgets what today already cost.
 */
export async function openRun(
  deps: Pick<SyncDeps, 'config' | 'log' | 'governor' | 'opening'>,
): Promise<OpenRun> {
  const { config, governor } = deps;
  stageMark('open: warehouse');
  const { runId, started, log, warehouse, writer } = await (deps.opening ?? openWarehouse(config, deps.log));
  let mode: SyncMode = 'full';
  let state: SyncState;
  let caps: OpenRun['caps'];
  try {
    stageMark('open: journal replay');
    await replayJournal(warehouse, config.dbPath, log);
    stageMark('open: run rows and baseline');
    const dead = await closeDeadRuns(warehouse, { runId, started, tookOver: writer.tookOver });
    // Each with the status it was closed with: a second signal's run is 'interrupted'.
    if (dead.length > 0)
      log.warn({ runs: dead }, 'runs an ended process left open, closed (sync_run_deaths)');
    // Before this run writes anything (a killed run's journal was replayed above: its rows
    // are that run's), so the summary can say what this run added, changed and removed.
    await warehouse.takeBaseline();
    stageMark('open: run row and spend');
    mode = await runMode(warehouse, config);
    await warehouse.startRun(runId, started, { mode, policy: policyRows(config) });
    await governor.startRun(runId);
    if (warehouse.migrated.length > 0)
      log.info({ applied: warehouse.migrated, path: config.dbPath }, 'warehouse migrations applied');
    // The day cap counts the service's UTC day (the governor keys spend by its Date header):
    // today on its clock as the last run saw it, and what the ledger spent on that day.
    // The sync state is read here, once: the plan stage builds the frontier from it.
    state = await warehouse.syncState();
    const lastOffsetMs = serviceClock(state.clocks).lastOffsetMs;
    const day = serviceDay(started, lastOffsetMs);
    const centsToday = (await warehouse.spendOnDay(day)).cents;
    await governor.seedSpend(centsToday, day, lastOffsetMs ?? undefined);
    // What the day cap leaves this run: its progress line plans no more than that buys.
    const { maxCentsPerRun: maxCents, maxCentsPerDay: dayCap } = config.budget;
    caps = { maxCents, dayCentsLeft: dayCap === null ? null : Math.max(0, dayCap - centsToday) };
  } catch (err) {
    await warehouse.close().catch(() => undefined);
    writer.release();
    throw err;
  }
  log.info({ mode }, mode === 'full' ? 'full sync' : 'nightly sync');
  return { runId, started, log, warehouse, writer, mode, state, caps };
}

/**
 * `--full`, or a warehouse no full sync read whole on (the first sync, or the rest of an
 * interrupted one), runs full; otherwise the default is the nightly. A full sync that read
 * everything but quarantined records (completed_with_quarantine) counts: the nightly asks
 * for those records again.
 */
async function runMode(warehouse: WarehouseHandle, config: Config): Promise<SyncMode> {
  if (config.full) return 'full';
  const [r] = await warehouse.query<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM (${sqlFile('runs/full-runs.sql')}) WHERE done`,
  );
  return Number(r?.n ?? 0) > 0 ? 'nightly' : 'full';
}

/** The plan stage: what the warehouse says is still owed, as the frontier that schedules it. */
export async function planRun(run: OpenRun, config: Config): Promise<Frontier> {
  const { state } = run;
  const reviewCounts = new Map(
    (
      await run.warehouse.query<{ id: string; n: number }>(
        'SELECT fragrance_id AS id, count(*)::INTEGER AS n FROM reviews GROUP BY 1',
      )
    ).map((r) => [r.id, Number(r.n)]),
  );
  const cycleStart = state.cycleStart ?? run.started.toISOString();
  const frontier = new Frontier(
    state,
    config.datasets,
    run.started,
    reviewCounts,
    state.reviewTotals,
    config.objective,
    state.similarCounts,
    await loadResumes(run.warehouse, state, cycleStart),
    // Until the walks have told the service's clock, a nightly owes only what was never
    // fetched; the fetch stage then judges every age on that clock (FetchStage retime), so
    // what is due is owed once, by the service's day, never by this machine's.
    run.mode === 'nightly' ? nightlyRule(config.freshness, null) : undefined,
  );
  if (run.mode === 'nightly') frontier.markNew(await lateNew(run.warehouse, state));
  return frontier;
}

/**
 * Replay what a dead process journaled but never committed: the first step of opening a run.
 * Not LoadStage's, the writer of a live run: this reads the segments another process left,
 * once, and shares with LoadStage only the journal's format and its marks.
 *
 * A segment is loaded unless the warehouse already holds its mark (`journal:<id>` in
 * sync_walks, committed with its rows), so a crash between a commit and the segment's
 * removal replays nothing twice; the ledger's own keys (07_ledger.sql) keep a call that is
 * journaled twice to one row besides.
 *
 * Requests it sent and never saw answered (a SentCall without its ApiCallItem in any leftover
 * segment) are first journaled as calls without an answer, in a segment of their own, so the
 * ledger keeps every request the service may have billed. Returns the number of segments
 * replayed.
 */
export async function replayJournal(
  warehouse: WarehouseHandle,
  dbPath: string,
  log: Logger,
): Promise<number> {
  const journal = new Journal(dbPath);
  const leftovers = journal.leftovers();
  if (leftovers.length === 0) return 0;
  const unanswered = unansweredCalls(leftovers.map((l) => l.path));
  for (const [runId, calls] of unanswered)
    journal.append(JSON.stringify({ runId, items: calls, progress: [] }));
  // The answers go last: until they are in, the segments that name the requests remain.
  const answers = journal.seal();
  journal.close();
  if (answers) leftovers.push(answers);
  const state = await warehouse.syncState();
  const committed = new Set(
    state.walks.filter((w) => w.walk.startsWith('journal:')).map((w) => w.walk.slice(8)),
  );
  let replayed = 0;
  for (const { id, path } of leftovers) {
    if (!committed.has(id)) {
      await warehouse.loadJournal(path, [journalMark(id)]);
      replayed++;
    }
    journal.removeLeftover(id);
  }
  const calls = [...unanswered.values()].reduce((n, c) => n + c.length, 0);
  log.info(
    { segments: replayed, unansweredCalls: calls },
    'replayed journaled results of an interrupted run',
  );
  return replayed;
}
