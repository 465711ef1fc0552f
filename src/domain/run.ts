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
  /** The process died while the run was open; the next start closes it with this status. */
  | 'interrupted';
