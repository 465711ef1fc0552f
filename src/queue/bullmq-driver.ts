import type { Queue } from 'bullmq';
import { openQueues, type BullmqDriverOptions, type OpenedQueues } from './bullmq-open.ts';
import { publishRun, runInfoKey } from './fetch-worker.ts';
import { QueueWatch } from './queue-watch.ts';
import { Receipts } from './receipts.ts';
import { earlierReports, jobsInHand } from './takeover.ts';
import type { Backlog, JobOutcome, QueueDriver, QueuedJob } from './types.ts';

/**
 * BullMQ on Redis: the coordinator enqueues fetch jobs, any number of worker processes run
 * them, and their outcomes come back through the load queue, consumed only here (the owner
 * of the warehouse file). A job is outstanding from submit until its final outcome.
 */
export class BullmqDriver implements QueueDriver {
  readonly name = 'bullmq' as const;
  private readonly outstanding = new Map<string, QueuedJob>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly watch: QueueWatch;

  private readonly fetchQueue: Queue;
  private readonly loadQueue: Queue;
  private readonly fetchWorker: OpenedQueues['fetchWorker'];

  private constructor(
    private readonly opts: BullmqDriverOptions,
    private readonly run: OpenedQueues,
  ) {
    this.fetchQueue = run.fetchQueue;
    this.loadQueue = run.loadQueue;
    this.fetchWorker = run.fetchWorker;
    const none = new Map<string, QueuedJob>();
    this.watch = new QueueWatch({
      governor: opts.governor,
      fetchQueue: run.fetchQueue,
      loadQueue: run.loadQueue,
      onPause: opts.onPause,
      onResume: opts.onResume,
      owed: () => (this.stopped ? none : this.outstanding),
      requeue: async (lost) => {
        this.run.notice.lost({ jobs: lost.length }, 'the jobs this run owes are enqueued again');
        await publishRun(this.opts.connection, this.opts.prefix, this.opts);
        this.outstanding.clear();
        await this.submit(lost);
      },
    });
  }

  static async create(opts: BullmqDriverOptions): Promise<BullmqDriver> {
    let driver: BullmqDriver | null = null;
    let created: (d: BullmqDriver) => void = () => undefined;
    const ready = new Promise<BullmqDriver>((resolve) => (created = resolve));
    const run = await openQueues(opts, {
      lost: () => void driver?.stop(),
      // A report may come in before the driver exists (a spool adopted at start): it waits.
      receive: async (outcome, reportId) => (await ready).receive(outcome, reportId),
    });
    driver = new BullmqDriver(opts, run);
    created(driver);
    driver.watch.start();
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
    return this.watch.pause;
  }

  async resume(): Promise<void> {
    // Workers of every process wait on the queue's rate limit until the reset: lift it (they
    // look again within maximumRateLimitDelay); watchPause sees the governor's pause gone.
    if (!this.stopped) await this.fetchQueue.removeRateLimitKey();
  }

  backlog(): Backlog {
    return {
      waiting: this.watch.waiting,
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
    this.watch.stop();
    await this.fetchWorker?.close();
    await this.run.loadWorker.close();
    this.run.loadConnection.disconnect();
    // What is still waiting is re-planned by the next run from the warehouse.
    await this.fetchQueue.drain(true);
    await this.fetchQueue.resume();
    await this.opts.connection.del(runInfoKey(this.opts.prefix));
    await this.run.lease.release();
    await this.fetchQueue.close();
    await this.loadQueue.close();
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
