import type { JobKind } from '../../jobs/types.ts';

/**
 * How the fetch stage counts a job that failed for good (src/queue/error-policy.ts decided it
 * would not be retried again), and so how the run ends (finish.ts, runStatus):
 * - `unreachable`: the service could not be reached or kept failing (network errors, 5xx after
 *   bounded retries), or it is not this API at all: the spec never answers 404 to a list (the
 *   fragrance, note, accord and chart lists, trending), so a service that does is another
 *   server or a base URL with a path too many (one ending in /v1). The run fails (exit 7)
 *   instead of completing a full sync of nothing with its lists in quarantine.
 * - `internal`: not the service's fault but an exception the program did not expect
 *   (error-policy.ts gives anything that is not a FragsyncError the code INTERNAL); a bug.
 * - `terminal`: the item's own failure (another 4xx): quarantined, the run goes on.
 */
export type FailureKind = 'unreachable' | 'internal' | 'terminal';

const LISTS: ReadonlySet<JobKind> = new Set<JobKind>([
  'fragrancesPage',
  'notesPage',
  'accords',
  'charts',
  'trending',
]);

export function failureKind(code: string, job: JobKind): FailureKind {
  if (code === 'NETWORK' || code === 'API_SERVER_ERROR') return 'unreachable';
  if (code === 'NOT_FOUND' && LISTS.has(job)) return 'unreachable';
  return code === 'INTERNAL' ? 'internal' : 'terminal';
}
