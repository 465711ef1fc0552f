import { Halt, NEVER_ABORTED } from '../domain/calls.ts';
import type { Governor } from '../governor/types.ts';
import type { JobSpec } from '../../jobs/types.ts';
import { haltsAtOnce } from './error-policy.ts';
import { execute, type ExecuteDeps } from './execute.ts';
import { Fifo } from './fifo.ts';
import type { Backlog, OutcomeHandler, QueueDriver, QueuedJob } from './types.ts';

/** The longest delay a Node timer takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface MemoryDriverOptions {
  deps: ExecuteDeps;
  governor: Governor;
  /** Jobs running at once (requests in flight are bounded by the client: http.concurrency). */
  concurrency: number;
  /** false: a quota pause stops the run (quota_exhausted) instead of waiting. */
  wait: boolean;
  onOutcome: OutcomeHandler;
  /** Called whenever a pause begins, with its local end. */
  onPause?: (until: Date) => void;
  /**
   * Called when a pause ends (work is still waiting then: the driver is not idle while
   * paused); no waiting job is taken until it settles (it may submit jobs first).
   */
  onResume?: () => Promise<void>;
}

/**
 * Runs the job processors in this process, where no Redis is configured. Same processors,
 * same error policy and same outcomes as the BullMQ driver; a priority queue replaces Redis.
 */
export class MemoryDriver implements QueueDriver {
  readonly name = 'memory' as const;
  private readonly queues = new Map<number, Fifo<QueuedJob>>();
  /** The priorities present in `queues`, lowest (first taken) first. */
  private priorities: number[] = [];
  /** By spec: a retried job is queued again as the same object; no id (a digest) is made for it. */
  private readonly attempts = new Map<JobSpec, number>();
  private active = 0;
  /** Jobs in `queues`. */
  private waiting = 0;
  private delayed = 0;
  private stopped = false;
  private resuming = false;
  private pauseEnd: Date | null = null;
  private pauseTimer: NodeJS.Timeout | null = null;
  private idleWaiters: (() => void)[] = [];
  /** Stops the jobs' requests when the run stops at once (stop(true)). */
  private readonly halt = new Halt();
  private readonly deps: ExecuteDeps;
  /** Jobs are halted, never aborted: this one is never aborted. */
  private readonly signal = NEVER_ABORTED;

  constructor(private readonly opts: MemoryDriverOptions) {
    this.deps = { ...opts.deps, halt: this.halt.signal };
  }

  /**
   * No set of the ids submitted: the sync's frontier submits a job once per run
   * (Frontier.fresh), and such a set held every job id of the run (half a million at 120k).
   */
  async submit(jobs: QueuedJob[]): Promise<void> {
    for (const job of jobs) this.push(job, false);
    this.pump();
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(abort = false): Promise<void> {
    this.stopped = true;
    // Requests already on the wire finish (Halted): cut off, the service may or may not
    // have read them, and the journal has ledgered them as sent.
    if (abort) this.halt.halt('the run stops');
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.pauseTimer = null;
    this.checkIdle();
  }

  pausedUntil(): Date | null {
    return this.pauseEnd;
  }

  async counts(): Promise<{ waiting: number; active: number; delayed: number }> {
    return { waiting: this.waiting, active: this.active, delayed: this.delayed };
  }

  backlog(): Backlog {
    return { waiting: this.waiting, running: this.active, capacity: this.opts.concurrency };
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private push(job: QueuedJob, front: boolean): void {
    const priority = job.spec.priority;
    let q = this.queues.get(priority);
    if (!q) {
      // A nightly ranks its refreshes over thousands of levels (src/sync/rank.ts): insert in
      // order, and drop a level once empty (next), so neither costs a pass over all of them.
      q = new Fifo();
      this.queues.set(priority, q);
      let lo = 0;
      let hi = this.priorities.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((this.priorities[mid] as number) < priority) lo = mid + 1;
        else hi = mid;
      }
      this.priorities.splice(lo, 0, priority);
    }
    if (front) q.unshift(job);
    else q.push(job);
    this.waiting++;
  }

  private next(): QueuedJob | undefined {
    while (this.priorities.length > 0) {
      const p = this.priorities[0] as number;
      const job = this.queues.get(p)?.shift();
      if (job) {
        this.waiting--;
        return job;
      }
      this.queues.delete(p);
      this.priorities.shift();
    }
    return undefined;
  }

  private pump(): void {
    if (this.resuming) return;
    while (!this.stopped && this.pauseEnd === null && this.active < this.opts.concurrency) {
      const job = this.next();
      if (!job) break;
      this.active++;
      void this.run(job);
    }
    this.checkIdle();
  }

  private async run(job: QueuedJob): Promise<void> {
    const id = job.spec;
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    try {
      const { outcome, action, next } = await execute(this.deps, job, attempt, this.signal);
      // A 402 or a 401 stops and halts before its report is handled: meanwhile other jobs end
      // and would take new ones, each of whose requests would be refused too. A cent cap stops
      // after it (the governor refuses only what does not fit, so a cheaper call may still).
      // Decided here only: the sync's stopRun halts a recheck's stop, never a job's.
      if (outcome.type === 'stop' && haltsAtOnce(outcome.reason)) void this.stop(true);
      await this.opts.onOutcome(outcome);
      if (outcome.type === 'stop') this.stopped = true;
      else if (action?.action === 'pause') {
        // A pause does not count as an attempt: the job goes back to the head of the line.
        this.attempts.set(id, attempt - 1);
        this.push(next ?? job, true);
        await this.beginPause(action.until);
      } else if (action?.action === 'retry') {
        this.delayed++;
        setTimeout(() => {
          this.delayed--;
          this.push(job, true);
          this.pump();
        }, action.delayMs).unref();
      } else {
        this.attempts.delete(id); // done or failed for good: no attempt follows
      }
    } finally {
      this.active--;
      this.pump();
    }
  }

  private async beginPause(fallback: Date | null): Promise<void> {
    const paused = await this.opts.governor.pausedUntil();
    // The pause already ended (a recheck found quota while this job was asking): go on.
    if (paused === null && this.opts.wait && this.pauseEnd === null) return;
    const until = paused ?? fallback ?? new Date(Date.now() + 60_000);
    if (!this.opts.wait) {
      this.pauseEnd = until;
      this.stopped = true;
      return;
    }
    if (this.pauseEnd && this.pauseEnd >= until) return;
    this.pauseEnd = until;
    this.opts.onPause?.(until);
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(
      () => this.endPause(),
      // Longer delays overflow Node's timer and fire at once: wake up and look again instead.
      Math.min(MAX_TIMER_MS, Math.max(0, until.getTime() - Date.now())),
    );
  }

  async resume(): Promise<void> {
    if (this.pauseEnd !== null && !this.stopped) this.endPause();
  }

  private endPause(): void {
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.pauseTimer = null;
    this.pauseEnd = null;
    // What the resume hook submits is queued by priority before pump() takes any job.
    this.resuming = true;
    void Promise.resolve(this.opts.onResume?.())
      .catch(() => undefined)
      .finally(() => {
        this.resuming = false;
        this.pump();
      });
  }

  private isIdle(): boolean {
    if (this.active > 0) return false;
    if (this.stopped) return true;
    return this.delayed === 0 && this.pauseEnd === null && this.waiting === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
