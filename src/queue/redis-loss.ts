import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Errors that mean Redis cannot be reached now (ioredis reconnects by itself, with backoff). */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN|Connection is closed/;

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
  /** Redis cannot be reached: said once when it goes, once when it is back. */
  private away = false;

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
        `Redis lost the queue's data (flushed, or restarted without persistence): ${what}; the run goes on from what was fetched (the jobs lost are enqueued again)`,
      );
    else this.log.debug(detail, `Redis data lost (already reported): ${what}`);
  }

  /**
   * An 'error' handler for a BullMQ worker or queue: lost jobs are symptoms of lost data, an
   * unreachable Redis is said once, anything else is logged.
   */
  onWorkerError(name: string): (err: Error) => void {
    return (err) => {
      if (/Missing (key|lock) for job/.test(err.message))
        this.lost({ err: err.message }, `a ${name} job vanished`);
      else if (UNREACHABLE.test(err.message)) this.unreachable(err);
      else this.log.error({ err: err.message }, `${name} worker error`);
    };
  }

  /** Watch a connection: its errors (without them ioredis prints each one) and its reconnection. */
  watch(redis: Redis): void {
    redis.on('error', this.onWorkerError('redis'));
    redis.on('ready', () => {
      if (!this.away) return;
      this.away = false;
      this.log.warn('Redis is back: taking jobs again');
    });
  }

  private unreachable(err: Error): void {
    if (this.away) return;
    this.away = true;
    const code = (err as NodeJS.ErrnoException).code ?? err.message;
    this.log.warn({ err: code }, `lost Redis (${code}): retrying with backoff until it is back`);
  }
}
