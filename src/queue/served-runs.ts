import type { Logger } from 'pino';

/**
 * What a `fragsync worker` process says of the runs it serves, one info line each: when a run
 * takes the lease (the process starts taking its jobs) and when the run no longer holds it
 * (the sync ended, or died and its lease lapsed), with the job attempts made here for it.
 * Run ids and counts only: the service's address and key are the run's, not for the log.
 * The sync's own fetch worker says nothing: the sync's log tells its run already.
 */
export class ServedRuns {
  private serving: string | null = null;
  private attempts = 0;

  constructor(private readonly log: Logger) {}

  /** The lease's holder as the worker read it now (null: no live run). */
  holder(runId: string | null): void {
    if (runId === this.serving) return;
    if (this.serving !== null)
      this.log.info(
        { runId: this.serving, jobAttempts: this.attempts },
        `run ${this.serving} ended: ${this.attempts} job attempts served here`,
      );
    this.serving = runId;
    this.attempts = 0;
    if (runId !== null) this.log.info({ runId }, `serving run ${runId}`);
  }

  /** A job attempt of `runId` started here. */
  attempt(runId: string): void {
    if (runId === this.serving) this.attempts++;
  }
}
