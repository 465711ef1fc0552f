import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Governor, GovernorLimits } from '../governor/types.ts';
import type { ExecuteDeps } from './execute.ts';
import { FETCH_QUEUE, LOAD_QUEUE, publishRun, runInfoKey, startFetchWorker } from './fetch-worker.ts';
import { cancelPrevious, earlierReports, jobsInHand, RunLease } from './takeover.ts';
import { Receipts } from './receipts.ts';
import { RedisLossNotice } from './redis-loss.ts';
import type { Backlog, JobOutcome, OutcomeHandler, QueueDriver, QueuedJob } from './types.ts';

export interface BullmqDriverOptions {
  connection: Redis;
  redisUrl: string;
  prefix: string;
  runId: string;
  baseUrl: string;
  settings: ExecuteDeps['settings'];
  deps: ExecuteDeps;
  governor: Governor;
  /** The run's governor limits, published to the workers with the run (RunInfo). */
  limits: GovernorLimits;
  /** Fetch jobs at once in this process's own worker. */
  concurrency: number;
  /** Also fetch in this process (true), or leave it to `fragsync worker` processes. */
  localWorker: boolean;
  /** This host's spool folder for the queue prefix (queue/spool.ts). */
  spoolDir: string;
  /** How long a worker's job lock lasts, in ms: a killed worker's jobs are taken over after it. */
  lockMs: number;
  /** The run lease's length in ms (queue/lease.ts): a killed sync's jobs stop within about this long. */
  leaseMs: number;
  wait: boolean;
  onOutcome: OutcomeHandler;
  onPause?: (until: Date) => void;
  /** Called when the shared pause ends (seen within a second); it may submit jobs. */
  onResume?: () => Promise<void>;
  log: Logger;
}

/**
 * BullMQ on Redis: the coordinator enqueues fetch jobs, any number of worker processes run
 * them, and their outcomes come back through the load queue, consumed only here (the owner
 * of the warehouse file). A job is outstanding from submit until its final outcome.
 */
export class BullmqDriver implements QueueDriver {
  readonly name = 'bullmq' as const;
  private readonly outstanding = new Map<string, QueuedJob>();
  private lostChecks = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private pause: Date | null = null;
  private pauseTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly opts: BullmqDriverOptions,
    private readonly fetchQueue: Queue,
    /** The load queue, for its counts (its jobs are taken by loadWorker). */
    private readonly loadQueue: Queue,
    private readonly loadWorker: Worker,
    private readonly loadConnection: Redis,
    private readonly fetchWorker: {
      running(): number;
      settle(): Promise<void>;
      close(): Promise<void>;
    } | null,
    private readonly run: { lease: RunLease; notice: RedisLossNotice; earlier: number | null },
  ) {}

  static async create(opts: BullmqDriverOptions): Promise<BullmqDriver> {
    let driver: BullmqDriver | null = null;
    const { lease, waitedFor } = await RunLease.take({
      redis: opts.connection,
      prefix: opts.prefix,
      runId: opts.runId,
      leaseMs: opts.leaseMs,
      log: opts.log,
      onLost: () => void driver?.stop(),
    });
    const previous = await publishRun(opts.connection, opts.prefix, opts);
    const fetchQueue = new Queue(FETCH_QUEUE, { connection: opts.connection, prefix: opts.prefix });
    const loadQueue = new Queue(LOAD_QUEUE, { connection: opts.connection, prefix: opts.prefix });
    const queues = { fetch: fetchQueue, load: loadQueue };
    await cancelPrevious(queues, previous ?? waitedFor, waitedFor !== null, opts.log);
    let created: (d: BullmqDriver) => void = () => undefined;
    const ready = new Promise<BullmqDriver>((resolve) => (created = resolve));
    const loadConnection = opts.connection.duplicate();
    const loadWorker = new Worker(
      LOAD_QUEUE,
      // A report may come in before the driver exists (a spool adopted at start): it waits.
      async (job: Job<JobOutcome>) => (await ready).receive(job.data, job.id),
      // Reports a killed owner was taking are stalled: the next owner gets them after the lock.
      {
        connection: loadConnection,
        prefix: opts.prefix,
        concurrency: 64,
        lockDuration: opts.lockMs,
        stalledInterval: opts.lockMs,
      },
    );
    const notice = new RedisLossNotice(opts.log);
    loadWorker.on('error', notice.onWorkerError('load'));
    const fetchWorker = opts.localWorker
      ? await startFetchWorker({
          connection: opts.connection,
          prefix: opts.prefix,
          concurrency: opts.concurrency,
          governor: opts.governor,
          log: opts.log,
          spoolDir: opts.spoolDir,
          lockMs: opts.lockMs,
          leaseMs: opts.leaseMs,
          notice,
          depsFor: async (runId) => (runId === opts.runId ? { deps: opts.deps, wait: opts.wait } : null),
        })
      : null;
    // Taken over from a run that had not ended: when (see earlierReports).
    const earlier = (previous ?? waitedFor) !== null ? Date.now() : null;
    const run = { lease, notice, earlier };
    driver = new BullmqDriver(opts, fetchQueue, loadQueue, loadWorker, loadConnection, fetchWorker, run);
    created(driver);
    driver.watchPause();
    return driver;
  }

  async submit(jobs: QueuedJob[]): Promise<void> {
    const fresh = jobs.filter((j) => !this.outstanding.has(j.id));
    if (fresh.length === 0 || this.stopped) return;
    for (const j of fresh) this.outstanding.set(j.id, j);
    await this.fetchQueue.addBulk(
      fresh.map((j) => ({
        name: j.spec.kind,
        // Spelt out: a QueuedJob's id may be a getter (FetchStage computes it only when asked).
        data: { id: j.id, runId: j.runId, spec: j.spec } satisfies QueuedJob,
        // Unique per run, derived from content: re-adding the same work in a run is a no-op.
        opts: {
          jobId: `${j.runId}-${j.id}`,
          priority: j.spec.priority,
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  /** Outcomes this process is handling right now (each one an active job of the load queue). */
  private receiving = 0;
  /** Of them, final outcomes of this run's jobs (no longer outstanding, not yet handled). */
  private ending = 0;
  private readonly receipts = new Receipts();

  private async receive(received: JobOutcome, reportId?: string): Promise<void> {
    const runId = this.opts.runId;
    // A job is owed a final outcome while outstanding (or, once stopped, whatever comes).
    const owed = (job: QueuedJob) => job.runId !== runId || this.stopped || this.outstanding.has(job.id);
    const outcome = this.receipts.take(received, reportId, owed);
    const ends = outcome.type !== 'ledger' && outcome.type !== 'requeued' && outcome.job.runId === runId;
    // No longer owed from here: recoverLost must not enqueue it again while it is handled.
    if (ends) this.outstanding.delete(outcome.job.id);
    this.receiving++;
    if (ends) this.ending++;
    try {
      await this.opts.onOutcome(outcome);
    } finally {
      this.receiving--;
      if (ends) this.ending--;
    }
    if (ends && outcome.type === 'stop') await this.stop();
    if (ends) this.checkIdle();
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Global: workers of every process stop taking jobs; running ones finish and report.
    await this.fetchQueue.pause();
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const c = await this.fetchQueue.getJobCounts('active');
      if ((c.active ?? 0) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await this.loadQueueEmpty(deadline);
    this.outstanding.clear();
    this.checkIdle();
  }

  /**
   * Before the ledger closes: reports this host's spools still owe (a Redis that lost its
   * data since the last check, a dead worker's spool) are made, and the load queue is
   * emptied into onOutcome.
   */
  async settle(): Promise<void> {
    const deadline = Date.now() + 30_000;
    // Jobs still in hand in a live process are a cancelled run's, aborted within a lease:
    // their calls come in their reports, which the ledger waits for.
    const { connection, prefix } = this.opts;
    while (Date.now() < deadline && (await jobsInHand(this.fetchQueue, connection, prefix)) > 0)
      await new Promise((r) => setTimeout(r, 100));
    await this.fetchWorker?.settle();
    await this.loadQueueEmpty(deadline);
  }

  /** What an earlier run left in the load queue, handled first (takeover.ts). */
  readonly earlierReports = () => earlierReports(this.loadQueue, { ...this.opts, since: this.run.earlier });

  private async loadQueueEmpty(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      const c = await this.loadQueue.getJobCounts('waiting', 'active', 'delayed');
      // stop() is often called while an outcome is being handled (a 'stop' outcome): those
      // load jobs are ours and active until stop() returns, so they cannot be waited for.
      if ((c.waiting ?? 0) + (c.delayed ?? 0) === 0 && (c.active ?? 0) <= this.receiving) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  pausedUntil(): Date | null {
    return this.pause;
  }

  async resume(): Promise<void> {
    // Workers of every process wait on the queue's rate limit until the reset: lift it (they
    // look again within maximumRateLimitDelay); watchPause sees the governor's pause gone.
    if (!this.stopped) await this.fetchQueue.removeRateLimitKey();
  }

  /** Fetch jobs waiting in Redis, as last counted (watchPause). */
  private waiting = 0;

  backlog(): Backlog {
    return {
      waiting: this.waiting,
      running: this.fetchWorker?.running() ?? 0,
      capacity: this.fetchWorker ? this.opts.concurrency : 0,
    };
  }

  async counts(): Promise<{ waiting: number; active: number; delayed: number }> {
    const c = await this.fetchQueue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
    };
  }

  async close(): Promise<void> {
    if (this.pauseTimer) clearInterval(this.pauseTimer);
    await this.fetchWorker?.close();
    await this.loadWorker.close();
    this.loadConnection.disconnect();
    // What is still waiting is re-planned by the next run from the warehouse.
    await this.fetchQueue.drain(true);
    await this.fetchQueue.resume();
    await this.opts.connection.del(runInfoKey(this.opts.prefix));
    await this.run.lease.release();
    await this.fetchQueue.close();
    await this.loadQueue.close();
  }

  /** The pause is the governor's (shared by all processes); mirror it for the progress line. */
  private watchPause(): void {
    this.pauseTimer = setInterval(() => {
      void this.opts.governor.pausedUntil().then((until) => {
        const was = this.pause;
        this.pause = until;
        if (until && (!was || was.getTime() !== until.getTime())) this.opts.onPause?.(until);
        // Only while work is outstanding: a pause that began with the run's last call must not
        // start new work once the run is done.
        if (was && !until && !this.stopped && this.outstanding.size > 0)
          void this.opts.onResume?.().catch(() => undefined);
      });
      if (++this.lostChecks % 4 === 0) void this.recoverLost().catch(() => undefined);
      void this.fetchQueue
        .getJobCounts('waiting', 'prioritized')
        .then((c) => (this.waiting = (c.waiting ?? 0) + (c.prioritized ?? 0)))
        .catch(() => undefined);
    }, 500);
    this.pauseTimer.unref();
  }

  /**
   * A Redis that lost its data (flushed, restarted without persistence) also lost our jobs:
   * when work is outstanding but both queues are empty twice in a row, enqueue it again.
   * The warehouse still holds everything loaded; only calls in flight are repeated.
   */
  private emptySeen = 0;
  private async recoverLost(): Promise<void> {
    if (this.stopped || this.outstanding.size === 0 || this.pause) return;
    const f = await this.fetchQueue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'wait');
    const l = await this.loadQueue.getJobCounts('waiting', 'active', 'delayed');
    const total = Object.values(f).reduce((a, b) => a + b, 0) + Object.values(l).reduce((a, b) => a + b, 0);
    if (total > 0) {
      this.emptySeen = 0;
      return;
    }
    if (++this.emptySeen < 2) return;
    this.emptySeen = 0;
    const lost = [...this.outstanding.values()];
    this.run.notice.lost({ jobs: lost.length }, 'the jobs this run owes are enqueued again');
    await publishRun(this.opts.connection, this.opts.prefix, this.opts);
    this.outstanding.clear();
    await this.submit(lost);
  }

  private isIdle(): boolean {
    // An outcome being handled may still make jobs owed.
    return this.outstanding.size === 0 && this.ending === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
