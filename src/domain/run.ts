/**
 * Why a run ended, as the engine reports it. This is the cause, not the process's exit
 * code: only the command line (src/cli/exit-codes.ts) turns a cause into a number.
 */

/** Why a run stops before its work is done (a job's error decided it; queue/error-policy.ts). */
export type StopReason = 'budget_exhausted' | 'payment_required' | 'unauthorized' | 'quota_exhausted';

/** A run's status in sync_runs; every status but 'running' is the cause it ended with. */
export type RunStatus =
  | 'running'
  | 'completed'
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
