import type { JobSpec } from '../../jobs/types.ts';
import type { FragranceClient } from '../api/client.ts';
import type { Config } from '../config/index.ts';
import type { JobOutcome, QueueDriver, QueuedJob } from '../queue/types.ts';
import { haltsAtOnce } from '../queue/error-policy.ts';
import type { Governor } from '../governor/types.ts';
import type { StopReason } from '../domain/run.ts';
import type { Frontier } from './frontier.ts';
import { callEstimate } from './call-estimate.ts';
import type { RunEstimate } from './run-estimate.ts';
import { QuotaPause, QuotaRecheck, windowReset } from './recheck.ts';
import type { LoadStage } from './load-stage.ts';
import { ResetRewalk } from './rewalk.ts';
import { takeRemovals } from './list-watch.ts';
import { SimilarSignals } from './similar-signals.ts';
import { Gate, idleReason } from './gate.ts';
import { Admission } from './admission.ts';
import { jobSettings } from './job-settings.ts';
import { RunClock } from './run-clock.ts';
import type { DriverContext, OpenRun, SyncTick } from './types.ts';
import { countFailure, emptyFetchResult, fetchPhase, noteDone, type FetchResult } from './fetch-result.ts';

/**
 * The fetch stage: submits the owed jobs to a queue driver (either one) and takes every
 * outcome it reports. A job's results go to the load stage (journaled before the job's slot
 * takes another job), its progress marks to the frontier, which answers with the jobs they
 * make owed. Counts what the progress line and the finish stage need.
 */
export class FetchStage {
  private driver: QueueDriver | null = null;
  private client: FragranceClient | null = null;
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
  private readonly admission: Admission;
  /** Null: none (a full run under the `calls` objective). */
  private readonly estimate: RunEstimate | null;
  private governor: Governor | undefined;
  private readonly clock: RunClock;
  /**
   * Outcomes are handled once fetch() has the driver: an earlier run's reports come as soon as
   * the BullMQ driver exists, and the jobs they make owed must reach it, not only the window.
   */
  private opened: () => void = () => undefined;
  private readonly ready = new Promise<void>((resolve) => (this.opened = resolve));
  /** What earlier runs' reports make owed, held until the first jobs go out (see fetch). */
  private early: JobSpec[] | null = [];

  constructor(
    private readonly run: OpenRun,
    private readonly config: Config,
    private readonly frontier: Frontier,
    private readonly load: LoadStage,
  ) {
    this.rewalk = new ResetRewalk(frontier, run.log);
    this.signals = new SimilarSignals(run, frontier, () => load.flush());
    this.clock = new RunClock(run, config.freshness, frontier);
    this.gate = new Gate(
      run.mode !== 'nightly',
      (held) => frontier.rank(held),
      () => this.clock.retime(),
    );
    this.admission = new Admission(run.runId, config.queue.windowJobs);
    this.estimate = callEstimate(config, run, frontier);
  }

  /**
   * What a driver needs to report to this stage. With the governor, a quota pause re-reads the
   * quota every quota.recheckMs (recheck.ts) and ends early when it was raised.
   */
  driverContext(client: FragranceClient, governor?: Governor): DriverContext {
    this.client = client;
    this.governor = governor;
    this.clock.governor = governor;
    if (governor) {
      const { recheckMs: intervalMs, wait } = this.config.quota;
      const resume = async () => this.driver?.resume();
      const stop = (reason: StopReason, msg: string) => this.stopRun(reason, msg, haltsAtOnce(reason));
      this.pause = new QuotaPause(
        new QuotaRecheck({ governor, client, intervalMs, log: this.run.log, resume, stop }),
        wait,
      );
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
        await this.submit(this.rewalk.resumed());
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
    tickMs = 1000,
  ): Promise<FetchResult> {
    this.driver = driver;
    await this.signals.open().finally(() => this.opened());
    const meter = this.client?.occupancy;
    meter?.start(() => idleReason(this.driver, this.gate));
    const ticker = setInterval(() => onTick?.(this.tick()), tickMs);
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
        // What an earlier run bought and never loaded (a killed sync's results in the load
        // queue) is absorbed first: the first jobs leave out what it already fetched.
        // Their order is any: a walk page naming a fragrance may come before its profile.
        await driver.earlierReports?.();
        const early = this.frontier.stillOwed(this.early ?? []);
        this.early = null;
        await this.pause.atStart();
        const first = this.rewalk.first([...early, ...this.frontier.initialJobs()]);
        await this.submit([...this.gate.pass(first), ...this.gate.ended(null)]);
        await driver.idle();
      }
      if (!this.result.writeFailure) this.load.add([], this.signals.settle()); // guesses left: owed
      this.result.clockOffsetMs = await this.clock.offset(); // kept with the run
    } finally {
      this.result.notAdmitted = this.admission.waiting;
      clearInterval(ticker);
      this.result.occupancy = meter?.stop() ?? null;
      interrupt?.removeEventListener('abort', onInterrupt);
      this.pause.stop();
    }
    return this.result;
  }

  /** The run stops with `reason` (a job's or a recheck's: the first counts); `halt` for a recheck's. */
  private async stopRun(reason: StopReason, message: string, halt = false): Promise<void> {
    if (this.result.stop) return;
    this.result.stop = { reason, message };
    this.run.log.warn({ reason }, message);
    await this.driver?.stop(halt);
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
      phase: fetchPhase(this.result.interrupted, pausedUntil, jobsDone, jobsScheduled),
      jobsDone,
      jobsScheduled,
      calls: this.calls,
      expectedCalls: this.estimate?.total(this.calls) ?? null,
      cents: this.cents,
      ...this.run.caps,
      quotaRemaining: this.lastRemaining,
      pausedUntil,
      elapsedMs: Date.now() - this.run.started.getTime(),
      pausedMs: this.pause.pausedMs(),
    };
  }

  private async onOutcome(o: JobOutcome): Promise<void> {
    await this.ready;
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
    // The first answer tells the service's clock: a nightly's estimate is priced on it.
    if (this.clock.answeredBy(o.calls)) this.estimate?.clock(await this.clock.offset());
    if (o.job.runId === this.run.runId) await this.submit(await this.rewalk.answered(o.calls, this.governor));
    if (o.type === 'done') await this.done(o);
    else {
      // What a stopped job bought (a review walk's pages) is stored with the marks saying so.
      const partial = o.type === 'failed' ? undefined : o.partial;
      if (partial) this.load.add([...partial.items, ...o.calls], this.frontier.absorb(partial.progress).keep);
      else this.load.add(o.calls, []);
      if (o.type === 'failed') this.failed(o);
      if (o.type === 'failed') await this.learnClock(o.job);
      if (o.type === 'failed') await this.submit(this.ended(o.job), o.job);
      else if (o.type === 'stop') await this.stopRun(o.reason, o.message);
    }
    // The job's results are in the journal before its slot takes another job (LoadStage.add).
    await this.load.durable();
  }

  private async done(o: Extract<JobOutcome, { type: 'done' }>): Promise<void> {
    this.jobsDone++;
    noteDone(this.result, o, this.run.runId);
    const gone = takeRemovals(this.frontier, o.result.items);
    this.estimate?.observe(o.result.progress);
    const { jobs, keep } = this.frontier.absorb(o.result.progress);
    const signalled = await this.signals.owed(gone, o.result.items);
    this.load.add([...o.result.items, ...o.calls], [...keep, ...this.frontier.takeStale()]);
    const owed = [...this.frontier.follow(o.result.follow), ...jobs, ...signalled];
    if (this.early) return void this.early.push(...owed);
    // What this job made owed passes the gate before the job counts as ended (see Gate).
    const next = this.gate.pass(owed);
    await this.learnClock(o.job);
    await this.submit([...next, ...this.ended(o.job)], o.job);
  }

  /**
   * A job of this run ended: the gate's next stage, when it opens. An earlier run's job was
   * never let out by this gate: its end counts for nothing (before the first jobs, with none
   * outstanding, it would open every stage at once).
   */
  private ended(job: QueuedJob): JobSpec[] {
    return job.runId === this.run.runId ? this.gate.ended(job.spec) : [];
  }

  /** As the walks end (the only job in flight then), the offset their responses showed (RunClock). */
  private async learnClock(job: QueuedJob): Promise<void> {
    if (job.runId === this.run.runId && this.gate.closesWalks(job.spec)) await this.clock.learn();
  }

  /**
   * Owed jobs reach the driver through the admission window (admission.ts), so neither the
   * in-process queue nor Redis holds all a large catalogue owes; `ended` makes room.
   */
  private async submit(next: JobSpec[], ended?: QueuedJob): Promise<void> {
    this.jobsScheduled += next.length;
    if (this.halted()) return;
    const now = this.admission.add(next, ended);
    if (now.length > 0) await this.driver?.submit(now);
  }

  private failed(o: Extract<JobOutcome, { type: 'failed' }>): void {
    this.jobsDone++;
    // Requests aborted because the key was refused are not failures of the items.
    if (this.result.stop?.reason === 'unauthorized') return;
    this.load.add([countFailure(this.result, o)], []);
  }
}
