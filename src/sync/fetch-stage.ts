import type { JobSpec } from '../../jobs/types.ts';
import type { FragranceClient } from '../api/client.ts';
import type { Config } from '../config/index.ts';
import { LazyQueuedJob, type JobOutcome, type QueueDriver, type QueuedJob } from '../queue/types.ts';
import type { StopReason } from '../domain/run.ts';
import type { LoadItem } from '../domain/items.ts';
import type { Governor } from '../governor/types.ts';
import type { Frontier } from './frontier.ts';
import { QuotaPause, QuotaRecheck, windowReset } from './recheck.ts';
import type { LoadStage } from './load-stage.ts';
import { ResetRewalk } from './rewalk.ts';
import { takeRemovals } from './list-watch.ts';
import { SimilarSignals } from './similar-signals.ts';
import { Gate } from './gate.ts';
import { jobSettings } from './job-settings.ts';
import type { DriverContext, OpenRun, SyncTick } from './types.ts';

/** What the fetch stage leaves for the finish stage to judge. */
export interface FetchResult {
  /** Why the run stopped early (budget, 402, 401, quota without waiting), if it did. */
  stop: { reason: StopReason; message: string } | null;
  /** Jobs that failed after bounded retries with the service unreachable or failing. */
  transientFailures: number;
  firstFailure: string | null;
  /** Jobs that failed for good (another 4xx): recorded in quarantine. */
  terminalFailures: number;
  /** Jobs that failed on an error of the program itself (a bug), not of the service. */
  internalFailures: number;
  firstInternal: string | null;
  /**
   * The latest complete listing of accords and of charts in this run (a re-walk pass replaces
   * the earlier one), or null when the list was not read: what the warehouse knows beyond a
   * complete listing left upstream.
   */
  listed: { accord: Set<string> | null; chart: Set<string> | null };
  /** The first failure of the warehouse or the journal (a full disk): the run fails on it. */
  writeFailure: unknown;
  /** Stopped by the interrupt signal (SyncDeps.interrupt) before the work was done. */
  interrupted: boolean;
}

/** A fetch that has seen no outcome yet. */
export function emptyFetchResult(): FetchResult {
  return {
    stop: null,
    transientFailures: 0,
    firstFailure: null,
    terminalFailures: 0,
    internalFailures: 0,
    firstInternal: null,
    listed: { accord: null, chart: null },
    writeFailure: null,
    interrupted: false,
  };
}

/**
 * The fetch stage: submits the owed jobs to a queue driver (either one) and takes every
 * outcome it reports. A job's results go to the load stage (journaled before the job's slot
 * takes another job), its progress marks to the frontier, which answers with the jobs they
 * make owed. Counts what the progress line and the finish stage need.
 */
export class FetchStage {
  private driver: QueueDriver | null = null;
  private readonly result = emptyFetchResult();
  private jobsDone = 0;
  private jobsScheduled = 0;
  private calls = 0;
  private cents = 0;
  private lastRemaining: number | null = null;
  private pause = new QuotaPause();
  private readonly rewalk: ResetRewalk;
  private readonly signals: SimilarSignals;
  private readonly gate: Gate;

  constructor(
    private readonly run: OpenRun,
    private readonly config: Config,
    private readonly frontier: Frontier,
    private readonly load: LoadStage,
  ) {
    this.rewalk = new ResetRewalk(frontier, run.log);
    this.signals = new SimilarSignals(run, frontier);
    this.gate = new Gate(run.mode !== 'nightly');
  }

  /**
   * What a driver needs to report to this stage. With the governor, a quota pause re-reads the
   * quota every quota.recheckMs (recheck.ts) and ends early when it was raised.
   */
  driverContext(client: FragranceClient, governor?: Governor): DriverContext {
    if (governor) {
      const recheck = new QuotaRecheck({
        governor,
        client,
        intervalMs: this.config.quota.recheckMs,
        log: this.run.log,
        resume: async () => this.driver?.resume(),
      });
      this.pause = new QuotaPause(recheck, this.config.quota.wait);
    }
    return {
      runId: this.run.runId,
      client,
      settings: jobSettings(this.config),
      onOutcome: (o) => this.onOutcome(o),
      onPause: (until) => {
        this.pause.began(until);
        this.rewalk.paused();
        // Nothing is written until the reset: analysts may open the warehouse meanwhile.
        this.run.writer?.paused(until);
        this.load.release();
        this.run.log.info({ pausedUntil: until.toISOString() }, `quota paused until ${until.toISOString()}`);
      },
      onResume: async () => {
        this.pause.ended();
        this.run.writer?.paused(null);
        if (this.halted()) return;
        // A recheck that found the quota raised ends a pause inside the quota window whose
        // lists this run read already: nothing new to look for yet.
        if (governor && !(await windowReset(governor))) return this.rewalk.sameWindow();
        const walks = this.rewalk.resumed();
        if (walks.length === 0) return;
        this.jobsScheduled += walks.length;
        await this.driver?.submit(this.queued(walks));
      },
    };
  }

  /**
   * Runs the initial jobs and everything they make owed, until the driver is idle or stopped.
   * An `interrupt` stops the driver taking jobs; the jobs in hand finish and report.
   */
  async fetch(
    driver: QueueDriver,
    onTick?: (tick: SyncTick) => void,
    interrupt?: AbortSignal,
  ): Promise<FetchResult> {
    this.driver = driver;
    await this.signals.open();
    const ticker = setInterval(() => onTick?.(this.tick()), 1000);
    const onInterrupt = () => {
      this.result.interrupted = true;
      this.pause.stop(); // no new call after an interrupt, a recheck neither
      onTick?.(this.tick());
      void driver.stop().catch((err: unknown) => this.run.log.warn({ err }, 'stopping the jobs failed'));
    };
    interrupt?.addEventListener('abort', onInterrupt, { once: true });
    try {
      if (interrupt?.aborted) this.result.interrupted = true;
      else {
        await this.pause.atStart();
        const initial = [...this.gate.pass(this.frontier.initialJobs()), ...this.gate.ended(null)];
        this.jobsScheduled += initial.length;
        await driver.submit(this.queued(initial));
        await driver.idle();
      }
    } finally {
      clearInterval(ticker);
      interrupt?.removeEventListener('abort', onInterrupt);
      this.pause.stop();
    }
    return this.result;
  }

  /** No job may be submitted any more: the run stopped, or was interrupted. */
  private halted(): boolean {
    return this.result.stop !== null || this.result.interrupted;
  }

  /**
   * The journal cannot be written: running jobs are aborted, not left to finish, since each
   * further page would only be paid for again by the next run. (After a failed warehouse
   * write the journal still keeps results, and running jobs may finish.)
   */
  abortJobs(): void {
    void this.driver
      ?.stop(true)
      .catch((err: unknown) => this.run.log.warn({ err }, 'stopping the jobs failed'));
  }

  private tick(): SyncTick {
    const { jobsDone, jobsScheduled } = this;
    const pausedUntil = this.pause.until;
    return {
      runId: this.run.runId,
      phase: this.result.interrupted
        ? 'stopping'
        : pausedUntil
          ? 'paused'
          : jobsDone < jobsScheduled / 2
            ? 'discovery'
            : 'details',
      jobsDone,
      jobsScheduled,
      calls: this.calls,
      cents: this.cents,
      maxCents: this.config.budget.maxCentsPerRun,
      quotaRemaining: this.lastRemaining,
      pausedUntil,
      elapsedMs: Date.now() - this.run.started.getTime(),
      pausedMs: this.pause.pausedMs(),
    };
  }

  private queued(specs: JobSpec[]): QueuedJob[] {
    return specs.map((spec) => new LazyQueuedJob(this.run.runId, spec));
  }

  private async onOutcome(o: JobOutcome): Promise<void> {
    const r = this.result;
    try {
      await this.handle(o);
    } catch (err) {
      r.writeFailure ??= err; // the journal could not be written (a full disk)
    }
    if (!r.writeFailure && this.load.failure) r.writeFailure = this.load.failure;
    // Nothing more can be written: stop sending (what was fetched is in the journal, and the
    // next run replays it); the finish stage fails the run with the warehouse's one-line error.
    if (r.writeFailure) await this.driver?.stop();
  }

  private async handle(o: JobOutcome): Promise<void> {
    if (o.type === 'ledger') {
      // Rows a worker's spool reported again (or a dead worker left): stored once per call
      // id, under the run that made them; not this run's live counts (most are stored already).
      this.load.add(o.calls, [], o.runId);
      await this.load.durable();
      return;
    }
    for (const c of o.calls) {
      this.calls++;
      this.cents += c.costCents;
      if (c.quotaRemaining !== null) this.lastRemaining = c.quotaRemaining;
    }
    if (o.type === 'done') await this.done(o);
    else {
      // What a stopped job bought (a review walk's pages) is stored with the marks saying so.
      const partial = o.type === 'failed' ? undefined : o.partial;
      if (partial) this.load.add([...partial.items, ...o.calls], this.frontier.absorb(partial.progress).keep);
      else this.load.add(o.calls, []);
      if (o.type === 'failed') this.failed(o);
      if (o.type === 'failed') await this.submit(this.gate.ended(o.job.spec));
      else if (o.type === 'stop' && !this.result.stop) {
        this.result.stop = { reason: o.reason, message: o.message };
        this.run.log.warn({ reason: o.reason }, o.message);
        await this.driver?.stop(o.reason === 'unauthorized');
      }
    }
    // The job's results are in the journal before its slot takes another job (LoadStage.add).
    await this.load.durable();
  }

  private async done(o: Extract<JobOutcome, { type: 'done' }>): Promise<void> {
    this.jobsDone++;
    const listed = this.result.listed;
    if (o.job.spec.kind === 'accords') listed.accord = new Set();
    if (o.job.spec.kind === 'charts') listed.chart = new Set();
    const gone = takeRemovals(this.frontier, o.result.items);
    const { jobs, keep } = this.frontier.absorb(o.result.progress);
    for (const item of o.result.items) {
      if (item.kind === 'accord') listed.accord?.add(item.slug);
      if (item.kind === 'chart') listed.chart?.add(item.slug);
    }
    const items: LoadItem[] = o.result.items;
    const signalled = await this.signals.owed(gone, items);
    this.load.add([...items, ...o.calls], [...keep, ...this.frontier.takeStale()]);
    // What this job made owed passes the gate before the job counts as ended (see Gate).
    const next = this.gate.pass([...this.frontier.follow(o.result.follow), ...jobs, ...signalled]);
    await this.submit([...next, ...this.gate.ended(o.job.spec)]);
  }

  private async submit(next: JobSpec[]): Promise<void> {
    this.jobsScheduled += next.length;
    if (next.length > 0 && !this.halted()) await this.driver?.submit(this.queued(next));
  }

  private failed(o: Extract<JobOutcome, { type: 'failed' }>): void {
    const r = this.result;
    this.jobsDone++;
    // Requests aborted because the key was refused are not failures of the items.
    if (r.stop?.reason === 'unauthorized') return;
    if (o.code === 'NETWORK' || o.code === 'API_SERVER_ERROR') {
      r.transientFailures++;
      r.firstFailure ??= o.reason;
    } else if (o.code === 'INTERNAL') {
      // Not the service's fault: an exception the program did not expect (error-policy.ts
      // gives anything that is not a FragsyncError this code). Never retried.
      r.internalFailures++;
      r.firstInternal ??= o.reason;
    } else r.terminalFailures++;
    this.load.add(
      [
        {
          kind: 'quarantine',
          endpoint: o.job.spec.kind,
          key: o.job.id,
          reason: `job failed: ${o.reason}`,
          raw: o.job.spec.payload,
          scope: 'job',
        },
      ],
      [],
    );
  }
}
