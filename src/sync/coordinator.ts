import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { specId } from '../../jobs/job-id.ts';
import type { JobSettings, JobSpec } from '../../jobs/types.ts';
import type { FragranceClient } from '../api/client.ts';
import type { Config } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import type { Governor } from '../governor/types.ts';
import type { JobOutcome, QueueDriver, QueuedJob } from '../queue/types.ts';
import type { LoadItem } from '../domain/items.ts';
import type { RunStatus, StopReason } from '../domain/run.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { ThreadWarehouse } from '../warehouse/thread/remote.ts';
import { Warehouse } from '../warehouse/warehouse.ts';
import { Frontier } from './frontier.ts';
import { LoadStage } from './load-stage.ts';
import { ResetRewalk } from './rewalk.ts';
import { clientFromConfig } from './client.ts';
import { summarize, type SyncSummary } from './summary.ts';

export interface SyncDeps {
  config: Config;
  log: Logger;
  governor: Governor;
  /** Builds the driver once the coordinator knows how to receive outcomes. */
  makeDriver: (ctx: DriverContext) => Promise<QueueDriver>;
  /** Called about once a second with the live state, for the progress line. */
  onTick?: (tick: SyncTick) => void;
}

export interface DriverContext {
  runId: string;
  client: FragranceClient;
  settings: JobSettings;
  onOutcome: (outcome: JobOutcome) => Promise<void>;
  onPause: (until: Date) => void;
  /**
   * Called when a quota pause ends while the run still has work outstanding (never after
   * idle()); the driver takes no waiting job until it settles.
   */
  onResume: () => Promise<void>;
}

export interface SyncTick {
  runId: string;
  phase: 'discovery' | 'details' | 'paused' | 'finishing';
  jobsDone: number;
  jobsScheduled: number;
  calls: number;
  cents: number;
  maxCents: number | null;
  quotaRemaining: number | null;
  pausedUntil: Date | null;
  elapsedMs: number;
}

export function jobSettings(config: Config): JobSettings {
  const d = config.datasets;
  return {
    reviews: { mode: d.reviews.mode, newest: d.reviews.newest },
    similar: d.similar,
    wearing: d.wearing,
    reviewDigest: d.reviewDigest,
    brands: d.brands,
    perfumers: d.perfumers,
  };
}

/**
 * `fragsync sync`: plans from the warehouse, runs the jobs through a driver, and, as the
 * owner of the warehouse file, is the only writer. Progress lives in the warehouse, so a run
 * that stops for any reason is continued by the next one.
 */
export async function runSync(deps: SyncDeps): Promise<SyncSummary> {
  const { config, log, governor } = deps;
  if (!config.baseUrl)
    throw new ConfigError(
      'config: baseUrl is required (--base-url or FRAGSYNC_BASE_URL); fragsync never guesses the service address',
    );
  if (!config.apiKey)
    throw new ConfigError('config: the API key is missing: set the FRAGSYNC_API_KEY environment variable');

  const started = new Date();
  const runId = `run-${started
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)}-${randomUUID().slice(0, 8)}`;
  const runLog = log.child({ runId });
  const warehouse: WarehouseHandle = config.loader.thread
    ? await ThreadWarehouse.open(config.dbPath, { logger: runLog })
    : await Warehouse.open(config.dbPath, { logger: runLog });
  let client: FragranceClient | null = null;
  let driver: QueueDriver | null = null;
  /** Whether the run already failed: a failure to close must not hide why. */
  let failed = false;
  try {
    await LoadStage.recover(warehouse, config.dbPath, runLog);
    for (const r of await warehouse.query<{ run_id: string }>(
      "SELECT run_id FROM sync_runs WHERE status = 'running'",
    )) {
      await warehouse.finishRun(r.run_id, 'interrupted', started);
    }
    await warehouse.startRun(runId, started);
    await governor.startRun(runId);
    const day = started.toISOString().slice(0, 10);
    await governor.seedSpend((await warehouse.spendOnDay(day)).cents, day);

    const state = await warehouse.syncState();
    const reviewCounts = new Map(
      (
        await warehouse.query<{ id: string; n: number }>(
          'SELECT fragrance_id AS id, count(*)::INTEGER AS n FROM reviews GROUP BY 1',
        )
      ).map((r) => [r.id, Number(r.n)]),
    );
    const frontier = new Frontier(
      state,
      config.datasets,
      started,
      reviewCounts,
      state.reviewTotals,
      config.objective,
      state.similarCounts,
    );
    const load = new LoadStage(warehouse, config.dbPath, runId, {
      batchItems: config.loader.batchItems,
      flushMs: config.loader.flushMs,
      log: runLog,
      // Running jobs are aborted, not left to finish: the journal cannot keep what they fetch,
      // so each further page would only be paid for again by the next run. (After a failed
      // warehouse write the journal still keeps results, and running jobs may finish.)
      onJournalFailure: () =>
        void driver?.stop(true).catch((err: unknown) => runLog.warn({ err }, 'stopping the jobs failed')),
    });

    let stop: { reason: StopReason; message: string } | null = null;
    let transientFailures = 0;
    let firstFailure: string | null = null;
    let terminalFailures = 0;
    let jobsDone = 0;
    let jobsScheduled = 0;
    let calls = 0;
    let cents = 0;
    let lastRemaining: number | null = null;
    let pausedUntil: Date | null = null;
    // The latest complete listing of each (a re-walk pass replaces the earlier one).
    let seenAccords = new Set<string>();
    let seenCharts = new Set<string>();
    const rewalk = new ResetRewalk(frontier, runLog);
    let accordsListed = false;
    let chartsListed = false;

    const toQueued = (specs: JobSpec[]): QueuedJob[] =>
      specs.map((spec) => ({ id: specId(spec), runId, spec }));

    /** The first failure of the warehouse (a full disk, a broken file): the run stops on it. */
    let writeFailure: unknown = null;
    const onOutcome = async (o: JobOutcome): Promise<void> => {
      try {
        await handleOutcome(o);
      } catch (err) {
        writeFailure ??= err; // the journal could not be written (a full disk)
      }
      if (!writeFailure && load.failure) writeFailure = load.failure;
      // Nothing more can be written: stop sending (what was fetched is in the journal, and the
      // next run replays it), then fail the run with the warehouse's one-line error.
      if (writeFailure) await driver?.stop();
    };
    const handleOutcome = async (o: JobOutcome): Promise<void> => {
      if (o.type === 'ledger') {
        // Rows a worker's spool reported again (or a dead worker left): stored once per call
        // id, under the run that made them; not this run's live counts (most are stored already).
        load.add(o.calls, [], o.runId);
        await load.durable();
        return;
      }
      const callItems: LoadItem[] = o.calls;
      for (const c of o.calls) {
        calls++;
        cents += c.costCents;
        if (c.quotaRemaining !== null) lastRemaining = c.quotaRemaining;
      }
      if (o.type === 'done') {
        jobsDone++;
        pausedUntil = null;
        const { jobs, keep } = frontier.absorb(o.result.progress);
        if (o.job.spec.kind === 'accords') {
          accordsListed = true;
          seenAccords = new Set();
        }
        if (o.job.spec.kind === 'charts') {
          chartsListed = true;
          seenCharts = new Set();
        }
        for (const item of o.result.items) {
          if (item.kind === 'removal') frontier.markRemoved(item.entity, item.keys);
          if (item.kind === 'accord') seenAccords.add(item.slug);
          if (item.kind === 'chart') seenCharts.add(item.slug);
        }
        load.add([...o.result.items, ...callItems], keep);
        const next = [...frontier.follow(o.result.follow), ...jobs];
        jobsScheduled += next.length;
        if (next.length > 0 && !stop) await driver?.submit(toQueued(next));
      } else {
        load.add(callItems, []);
        if (o.type === 'failed' && stop?.reason === 'unauthorized') {
          // Requests aborted because the key was refused: not failures of the items.
          jobsDone++;
        } else if (o.type === 'failed') {
          jobsDone++;
          if (o.code === 'NETWORK' || o.code === 'API_SERVER_ERROR' || o.code === 'INTERNAL') {
            transientFailures++;
            firstFailure ??= o.reason;
          } else terminalFailures++;
          load.add(
            [
              {
                kind: 'quarantine',
                endpoint: o.job.spec.kind,
                key: o.job.id,
                reason: `job failed: ${o.reason}`,
                raw: o.job.spec.payload,
              },
            ],
            [],
          );
        } else if (o.type === 'stop' && !stop) {
          stop = { reason: o.reason, message: o.message };
          runLog.warn({ reason: o.reason }, o.message);
          await driver?.stop(o.reason === 'unauthorized');
        }
      }
      // The job's results are in the journal before its slot takes another job (LoadStage.add).
      await load.durable();
    };

    client = clientFromConfig(config, {
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      governor,
      // Job attempts record their calls through their own view (execute.ts); a call made
      // outside any job still reaches the ledger.
      onCall: (call) => load.add([call], []),
      // Each request is journaled as it leaves: a kill while it is in flight loses no ledger row.
      onSent: (call) => load.sent(call),
      log: runLog,
    });
    driver = await deps.makeDriver({
      runId,
      client,
      settings: jobSettings(config),
      onOutcome,
      onPause: (until) => {
        pausedUntil = until;
        rewalk.paused();
        runLog.info({ pausedUntil: until.toISOString() }, `quota paused until ${until.toISOString()}`);
      },
      onResume: async () => {
        pausedUntil = null;
        if (stop) return;
        const walks = rewalk.resumed();
        if (walks.length === 0) return;
        jobsScheduled += walks.length;
        await driver?.submit(toQueued(walks));
      },
    });

    const ticker = setInterval(() => {
      deps.onTick?.({
        runId,
        phase: pausedUntil ? 'paused' : jobsDone < jobsScheduled / 2 ? 'discovery' : 'details',
        jobsDone,
        jobsScheduled,
        calls,
        cents,
        maxCents: config.budget.maxCentsPerRun,
        quotaRemaining: lastRemaining,
        pausedUntil,
        elapsedMs: Date.now() - started.getTime(),
      });
    }, 1000);
    try {
      const initial = frontier.initialJobs();
      jobsScheduled += initial.length;
      await driver.submit(toQueued(initial));
      await driver.idle();
    } finally {
      clearInterval(ticker);
    }

    if (writeFailure) {
      await load.close().catch(() => undefined);
      throw writeFailure;
    }
    let status: RunStatus;
    const quotaStopped = !stop && driver.pausedUntil() !== null && !config.quota.wait;
    if (stop) status = (stop as { reason: StopReason }).reason;
    else if (quotaStopped) status = 'quota_exhausted';
    else if (transientFailures > 0) status = 'failed';
    else status = 'completed';

    if (status === 'completed') {
      // Lists read whole in this run: what the warehouse knows beyond them left upstream.
      const gone = (entity: 'accord' | 'chart', seen: Set<string>) =>
        frontier.knownKeys(entity).filter((k) => !seen.has(k));
      const removals: LoadItem[] = [];
      if (accordsListed)
        removals.push({ kind: 'removal', entity: 'accord', keys: gone('accord', seenAccords) });
      if (chartsListed) removals.push({ kind: 'removal', entity: 'chart', keys: gone('chart', seenCharts) });
      const nonEmpty = removals.filter((r) => r.kind === 'removal' && r.keys.length > 0);
      if (nonEmpty.length > 0) load.add(nonEmpty, []);
    }
    await driver.settle?.();
    await load.close();
    await warehouse.finishRun(runId, status, new Date());
    await warehouse.query("DELETE FROM sync_walks WHERE walk LIKE 'journal:%'");
    if (status === 'completed' && config.export.parquetDir)
      await warehouse.exportParquet(config.export.parquetDir);

    return await summarize(warehouse, {
      runId,
      status,
      started,
      config,
      stopMessage:
        (stop as { message: string } | null)?.message ??
        (status === 'failed'
          ? `${transientFailures} jobs failed after bounded retries (service unreachable or failing); first: ${firstFailure}`
          : null),
      pausedUntil: driver.pausedUntil(),
      terminalFailures,
      transientFailures,
      loaded: load.loaded,
      owedJobs: await driver.counts(),
    });
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await driver?.close();
    await client?.close();
    // Closing checkpoints the file (Warehouse.close): no room for it is an error of its own
    // when the run went well, and only a log line when the run already failed on something.
    await warehouse.close().catch((err: unknown) => {
      if (!failed) throw err;
      runLog.warn({ err }, 'closing the warehouse failed too');
    });
  }
}
