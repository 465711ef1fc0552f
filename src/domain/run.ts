/**
 * Why a run ended, as the engine reports it. This is the cause, not the process's exit
 * code: only the command line (src/cli/exit-codes.ts) turns a cause into a number.
 */

/** Why a run stops before its work is done (a job's error decided it; queue/error-policy.ts). */
export type StopReason = 'budget_exhausted' | 'payment_required' | 'unauthorized' | 'quota_exhausted';

/** A run's status in sync_runs; every status but 'running' is the cause it ended with. */
export type RunStatus =
  | 'running'
  /** Read everything it owed, and stored all it received. */
  | 'completed'
  /**
   * Read everything it owed, but records it received could not be stored: they are in
   * quarantine, not in the mirror (exit 8). Not 'completed', so that `status = 'completed'`
   * finds only runs that left the mirror whole; a finished read all the same (readAll).
   */
  | 'completed_with_quarantine'
  | StopReason
  /** Jobs kept failing after bounded retries (service unreachable or failing). */
  | 'failed'
  /**
   * A job failed on an error of the program itself (a bug, an unexpected exception inside
   * the engine), not on anything the service answered: retrying the run will not help.
   */
  | 'internal_error'
  /** Stopped by Ctrl-C or SIGTERM: the requests in flight finished, what was fetched is loaded. */
  | 'interrupted';

/**
 * A status sync_runs may hold: a run's own cause, or 'died', which no run reports of itself:
 * its process ended without closing it (SIGKILL, out of memory, a machine lost), and the next
 * sync found it so (sync_run_deaths says when and why). Its exit code was seen by no one.
 */
export type RecordedStatus = RunStatus | 'died';

/**
 * The statuses of a run that read everything it owed: a full one of them finishes its cycle,
 * and cycles, the nightly, list removals and the Parquet export count on it. SQL says the
 * same as full_runs.done (sql/runs/full-runs.sql).
 */
const READ_ALL: readonly RunStatus[] = ['completed', 'completed_with_quarantine'];

/** Whether a run with this status read everything it owed (READ_ALL). */
export function readAll(status: string): boolean {
  return (READ_ALL as readonly string[]).includes(status);
}

/**
 * How a run that read everything ended: 'completed_with_quarantine' when records of it (or,
 * for a full run that completes its cycle, of the cycle's earlier runs) are still in quarantine
 * (what the summary counts, read after releases); any other cause as it is.
 */
export function withQuarantine(status: RunStatus, quarantined: number): RunStatus {
  return status === 'completed' && quarantined > 0 ? 'completed_with_quarantine' : status;
}
