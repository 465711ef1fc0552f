import { isFragsyncError, oneLine } from '../errors.ts';
import type { StopReason } from '../domain/run.ts';
import { isHaltReason } from '../domain/calls.ts';

/**
 * The one place where errors become queue actions:
 * - quota (429, or remaining down to the reserve): the job goes back to waiting and every
 *   worker pauses until the reset; no retry is counted;
 * - budget cap, 402, 401: the run stops cleanly (401 at once), the job stays owed;
 * - transient (5xx and network errors that outlived the client's own retries): retried a
 *   few times with backoff at the job level;
 * - anything else is terminal for the job: recorded as failed with its reason, never retried.
 */
export type ErrorAction =
  | { action: 'pause'; until: Date | null }
  | { action: 'stop'; reason: StopReason; message: string }
  | { action: 'retry'; delayMs: number }
  | { action: 'fail'; code: string; reason: string };

/** Job-level attempts for transient errors (each attempt already had the client's retries). */
export const MAX_JOB_ATTEMPTS = 3;

export function decide(err: unknown, attempt: number, random: () => number = Math.random): ErrorAction {
  const code = isFragsyncError(err) ? err.code : 'INTERNAL';
  switch (code) {
    case 'RATE_LIMITED':
    case 'QUOTA_RESERVED': {
      const resetAt = (err as { resetAt?: unknown }).resetAt;
      return { action: 'pause', until: resetAt instanceof Date ? resetAt : null };
    }
    case 'BUDGET_EXHAUSTED':
      return { action: 'stop', reason: 'budget_exhausted', message: oneLine(err) };
    case 'PAYMENT_REQUIRED':
      return { action: 'stop', reason: 'payment_required', message: oneLine(err) };
    case 'UNAUTHORIZED':
      return { action: 'stop', reason: 'unauthorized', message: oneLine(err) };
  }
  const transient = isFragsyncError(err) ? err.transient : false;
  if (transient && attempt < MAX_JOB_ATTEMPTS) {
    const base = 500 * 2 ** (attempt - 1);
    return { action: 'retry', delayMs: Math.round(base / 2 + random() * base) };
  }
  return { action: 'fail', code, reason: oneLine(err) };
}

/**
 * Stops after which no further request of the run may leave, not even one a job already
 * holds: the service would refuse each alike (a spent balance, a refused key), and whether
 * it bills refused calls is not in the spec. The requests on the wire are answered and
 * ledgered. A budget cap needs no halt (the governor refuses what it does not admit).
 * Which they are: domain/calls.ts HALTING.
 */
export function haltsAtOnce(reason: StopReason): boolean {
  return isHaltReason(reason);
}
