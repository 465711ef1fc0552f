import type { JobOutcome, QueuedJob } from './types.ts';

/** How long a load job id is remembered at least (it is forgotten within twice this). */
const REMEMBER_MS = 120_000;

/**
 * What the owner of the warehouse took from the load queue, so that a report that comes
 * twice is handled once. After Redis lost its data a worker sends again the reports it had
 * sent shortly before (queue/spool.ts, reportAgain), under their first load job id: those the
 * owner had taken already count for their ledger rows only (stored once per call id). And a
 * job enqueued again because the queue vanished (bullmq-driver.ts, recoverLost) may also
 * end in the worker that held it: its second final outcome is one more attempt, whose calls
 * count, whose results are not needed.
 *
 * Ids are kept in two generations, the older dropped every REMEMBER_MS: a worker sends again
 * only reports of the last seconds (those whose spool segment it still keeps).
 */
export class Receipts {
  private current = new Set<string>();
  private previous = new Set<string>();
  private turnedAt = Date.now();

  /**
   * The outcome as the owner should handle it: unchanged, or reduced to what it still owes
   * (ledger rows; or an attempt's calls). `owed(job)` says whether a final outcome of the job
   * is still awaited.
   */
  take(outcome: JobOutcome, reportId: string | undefined, owed: (job: QueuedJob) => boolean): JobOutcome {
    if (reportId !== undefined && !this.first(reportId)) {
      const runId = outcome.type === 'ledger' ? outcome.runId : outcome.job.runId;
      return { type: 'ledger', runId, calls: outcome.calls };
    }
    if ((outcome.type === 'done' || outcome.type === 'failed') && !owed(outcome.job))
      return { type: 'requeued', job: outcome.job, calls: outcome.calls };
    return outcome;
  }

  private first(id: string): boolean {
    if (Date.now() - this.turnedAt > REMEMBER_MS) {
      this.previous = this.current;
      this.current = new Set();
      this.turnedAt = Date.now();
    }
    if (this.current.has(id) || this.previous.has(id)) return false;
    this.current.add(id);
    return true;
  }
}
