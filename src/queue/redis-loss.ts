import type { Logger } from 'pino';

/**
 * A Redis that lost its data (FLUSHALL, a restart without persistence) shows in many places
 * at once: every job finishing in every worker fails ("Missing key for job ... moveToFinished"),
 * the spools find their markers gone, the driver finds its queues empty. Each is handled where
 * it shows (the spool reports its rows again, the driver enqueues the owed jobs again, a job
 * whose key vanished is simply gone); the user is told once per process and episode, in one
 * warning line, the rest at debug level.
 */
export class RedisLossNotice {
  private lastAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly log: Logger,
    /** Symptoms closer than this to the previous one belong to the same loss. */
    private readonly episodeMs = 60_000,
  ) {}

  /** One symptom of the loss, with what it costs (for the debug line, or the warning). */
  lost(detail: Record<string, unknown>, what: string): void {
    const now = Date.now();
    const first = now - this.lastAt > this.episodeMs;
    this.lastAt = now;
    if (first)
      this.log.warn(
        detail,
        `Redis lost the queue's data (flushed, or restarted without persistence): ${what}; jobs in flight are fetched again, nothing fetched before is lost`,
      );
    else this.log.debug(detail, `Redis data lost (already reported): ${what}`);
  }

  /** An 'error' handler for a BullMQ worker: lost jobs are symptoms, anything else is logged. */
  onWorkerError(name: string): (err: Error) => void {
    return (err) => {
      if (/Missing (key|lock) for job/.test(err.message))
        this.lost({ err: err.message }, `a ${name} job vanished`);
      else this.log.error({ err: err.message }, `${name} worker error`);
    };
  }
}
