import type { RunStatus } from '../domain/run.ts';

/** Distinct, documented exit codes (README "Exit codes"). Cron wrappers rely on them. */
export const EXIT = {
  /** The run completed. */
  ok: 0,
  /** Unexpected failure: a bug, an error inside the engine (a job failed on one), or no better code. */
  unexpected: 1,
  /**
   * Bad input or configuration (invalid flag, config value, missing key or base URL), an
   * unreachable Redis, no room to write the warehouse or its journal, or a warehouse another
   * process holds: the machine's setup, not a bug.
   */
  badInput: 2,
  /** Stopped by a cent cap (--max-cents, per-day cap); everything fetched is loaded. */
  budgetExhausted: 3,
  /** The service answered 402: top up the balance and run again to continue. */
  paymentRequired: 4,
  /** The daily quota is used up (down to the reserve) and --no-wait was given. */
  quotaExhausted: 5,
  /** The API key was refused (401). */
  unauthorized: 6,
  /** The API could not be reached, or kept failing after bounded retries, or the base URL is not the API's. */
  apiUnavailable: 7,
  /**
   * The run read everything it owed, but records it received could not be stored and are in
   * quarantine (`fragsync quarantine` lists them; its status 'completed_with_quarantine'):
   * cron must notice data that did not arrive.
   */
  quarantined: 8,
  /**
   * Stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it): the requests in flight
   * finished and everything fetched is loaded; the next sync continues. A run whose process
   * died is not this: it is recorded 'died', with no exit code (sync/dead-runs.ts).
   */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Each cause a run ends with (src/domain/run.ts), as the number cron wrappers see. */
export const EXIT_BY_STATUS: Record<RunStatus, ExitCode> = {
  completed: EXIT.ok,
  completed_with_quarantine: EXIT.quarantined,
  running: EXIT.unexpected,
  budget_exhausted: EXIT.budgetExhausted,
  payment_required: EXIT.paymentRequired,
  quota_exhausted: EXIT.quotaExhausted,
  unauthorized: EXIT.unauthorized,
  failed: EXIT.apiUnavailable,
  internal_error: EXIT.unexpected,
  interrupted: EXIT.interrupted,
};

/** The exit code for the cause a sync run ended with. */
export function exitCodeFor(status: RunStatus): ExitCode {
  return EXIT_BY_STATUS[status];
}

/**
 * The exit code a sync ends with: its cause's ('completed_with_quarantine' is 8). A run of an
 * earlier version recorded that case 'completed' with records quarantined: 8 too, as it
 * exited (`fragsync status` reads its row so). Flagged values and rows stored apart in the overflow tables (repeats the contract's
 * keys cannot hold, which the spec allows) are stored and exported, so they do not change it:
 * an 8 every night for a legal reading of the spec would teach cron to ignore it.
 */
export function exitCodeOfRun(run: {
  status: RunStatus;
  /** What it quarantined: the summary's list, or a count (`fragsync status`). */
  quarantined: readonly unknown[] | number;
}): ExitCode {
  const n = typeof run.quarantined === 'number' ? run.quarantined : run.quarantined.length;
  return run.status === 'completed' && n > 0 ? EXIT.quarantined : exitCodeFor(run.status);
}

/** One line per code for `--help` (the README's table says the same at more length). */
export const EXIT_MEANING: Record<ExitCode, string> = {
  0: 'done (for sync: the run completed)',
  1: 'unexpected failure: a bug or an error inside fragsync (not the service), or no better code',
  2: 'bad input or setup: flag, config value, key, unreachable Redis, full disk, warehouse in use',
  3: 'stopped by a cent cap; everything fetched is loaded',
  4: 'the service answered 402 Payment Required: top up, run again, it continues',
  5: 'the daily quota is down to the reserve and --no-wait was given',
  6: 'the API key was refused (401)',
  7: 'the service could not be reached, kept failing after bounded retries, or is not this API (lists answered 404)',
  8: 'ended with records quarantined (not stored): see `fragsync quarantine`',
  130: 'interrupted (Ctrl-C, SIGTERM): requests in flight finished, all fetched is loaded; run again to continue',
};

/**
 * What a code means for one command where the general line would mislead: `fragsync sim` and
 * `dashboard` are services, which end when they are told to (a signal), and whose setup is an
 * address.
 */
export const EXIT_MEANING_OF: Readonly<Record<string, Partial<Record<ExitCode, string>>>> = {
  sim: {
    0: 'stopped by SIGINT or SIGTERM, the way it ends',
    2: 'bad input or setup: a flag, or an address it cannot listen on (port in use, not allowed)',
  },
  dashboard: {
    0: 'stopped by SIGINT or SIGTERM, the way it ends',
    2: 'bad input or setup: a flag, unreachable Redis, or an address it cannot listen on (port in use)',
  },
};

/** The `--help` line of `code` for `command`. */
export function exitMeaning(code: ExitCode, command?: string): string {
  return (command === undefined ? undefined : EXIT_MEANING_OF[command]?.[code]) ?? EXIT_MEANING[code];
}
