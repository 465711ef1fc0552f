import type { SyncSummary } from '../sync/summary.ts';
import { exitCodeOfRun } from './exit-codes.ts';

/**
 * `fragsync sync --json`: the run's summary as one JSON document, with the exit code the
 * process ends with. Every field of SyncSummary is carried (fields others add to it appear
 * without a change here); dates are ISO 8601 UTC.
 */
export function summaryJson(summary: SyncSummary): string {
  return JSON.stringify({ ...summary, exitCode: exitCodeOfRun(summary) }, (_key, value: unknown) =>
    typeof value === 'bigint' ? Number(value) : value,
  );
}
