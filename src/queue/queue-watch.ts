import type { Queue } from 'bullmq';
import type { Governor } from '../governor/types.ts';
import type { QueuedJob } from './types.ts';

/** What the watch reads of the run it watches (BullmqDriver), and how it acts on it. */
export interface WatchedRun {
  governor: Governor;
  fetchQueue: Queue;
  loadQueue: Queue;
  onPause?: (until: Date) => void;
  /** The shared pause ended while work is owed; it may submit jobs. */
  onResume?: () => Promise<void>;
  /** The jobs still owed a final outcome: none once the run is stopping. */
  owed(): ReadonlyMap<string, QueuedJob>;
  /** Every owed job, lost with Redis's data: enqueue them again. */
  requeue(lost: QueuedJob[]): Promise<void>;
}

/**
 * The BullMQ driver's timer, every half second: it mirrors the governor's pause (shared by
 * all processes) for the progress line, counts the fetch jobs waiting in Redis (the backlog),
 * and every other second looks for jobs a Redis that lost its data took with it.
 */
export class QueueWatch {
  /** The governor's pause, as last read. */
  pause: Date | null = null;
  /** Fetch jobs waiting in Redis, as last counted. */
  waiting = 0;
  private timer: NodeJS.Timeout | null = null;
  private checks = 0;
  private emptySeen = 0;

  constructor(private readonly run: WatchedRun) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 500);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private tick(): void {
    void this.run.governor.pausedUntil().then((until) => {
      const was = this.pause;
      this.pause = until;
      if (until && (!was || was.getTime() !== until.getTime())) this.run.onPause?.(until);
      // Only while work is outstanding: a pause that began with the run's last call must not
      // start new work once the run is done.
      if (was && !until && this.run.owed().size > 0) void this.run.onResume?.().catch(() => undefined);
    });
    if (++this.checks % 4 === 0) void this.recoverLost().catch(() => undefined);
    void this.run.fetchQueue
      .getJobCounts('waiting', 'prioritized')
      .then((c) => (this.waiting = (c.waiting ?? 0) + (c.prioritized ?? 0)))
      .catch(() => undefined);
  }

  /**
   * A Redis that lost its data (flushed, restarted without persistence) also lost our jobs:
   * when work is outstanding but both queues are empty twice in a row, enqueue it again.
   * The warehouse still holds everything loaded; only calls in flight are repeated.
   */
  private async recoverLost(): Promise<void> {
    if (this.run.owed().size === 0 || this.pause) return;
    const f = await this.run.fetchQueue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'wait');
    const l = await this.run.loadQueue.getJobCounts('waiting', 'active', 'delayed');
    const total = Object.values(f).reduce((a, b) => a + b, 0) + Object.values(l).reduce((a, b) => a + b, 0);
    if (total > 0) {
      this.emptySeen = 0;
      return;
    }
    if (++this.emptySeen < 2) return;
    this.emptySeen = 0;
    await this.run.requeue([...this.run.owed().values()]);
  }
}
