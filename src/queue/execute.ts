import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { runJob } from '../../jobs/index.ts';
import { PartialResultError, type JobContext, type JobSettings } from '../../jobs/types.ts';
import type { FragranceClient } from '../api/client.ts';
import type { ApiCallItem } from '../domain/calls.ts';
import { decide, type ErrorAction } from './error-policy.ts';
import type { CallSpool } from './spool.ts';
import type { JobOutcome, QueuedJob } from './types.ts';

export interface ExecuteDeps {
  client: FragranceClient;
  settings: JobSettings;
  log: Logger;
  /** A worker's spool (BullMQ mode): told of each request as it leaves and as it is answered. */
  spool?: CallSpool;
  /**
   * Once aborted (Halt), the attempt sends no further request and requests on the wire
   * finish: the run stops at once (in-process driver), or a worker's run lost its lease.
   */
  halt?: AbortSignal;
  /** Told the moment one of the attempt's requests is answered 402 or 401 (a worker's haltRun). */
  onRunStop?: () => void;
}

export interface Execution {
  outcome: JobOutcome;
  /** For requeued outcomes: what the driver should do (pause until, or retry after). */
  action: ErrorAction | null;
  /** The job to queue again instead of this one: it goes on from what it bought (a review walk's pages). */
  next?: QueuedJob;
}

/** Run one attempt of a job and classify its end through the error policy. */
export async function execute(
  deps: ExecuteDeps,
  job: QueuedJob,
  attempt: number,
  signal: AbortSignal,
): Promise<Execution> {
  const calls: ApiCallItem[] = [];
  const spool = deps.spool;
  // A job reads pages side by side (jobs/paging.ts), each request listening to this signal
  // (undici, the transport): more than node's 10 is by design, not a leak.
  setMaxListeners(0, signal);
  // The job's child logger is made only when something is logged: most attempts log nothing,
  // and a child per attempt showed in profiles.
  let child: Logger | null = null;
  const jobLog = (): Logger => (child ??= deps.log.child({ job: job.id, kind: job.spec.kind }));
  const ctx: JobContext = {
    // The attempt's own view of the shared client: its requests' ledger rows land in `calls`.
    client: deps.client.withCalls(
      (call) => {
        calls.push(call);
        spool?.answered(job.runId, call);
      },
      spool && ((call) => spool.sent(job.runId, call)),
      deps.halt,
      deps.onRunStop,
    ),
    settings: deps.settings,
    signal,
    get log() {
      return jobLog();
    },
  };
  try {
    const result = await runJob(ctx, job.spec.kind, job.spec.payload);
    return { outcome: { type: 'done', job, result, calls }, action: null };
  } catch (thrown) {
    // Halted (the run stops at once: a refused key, a journal that cannot be written; or a
    // worker's run lost its lease) or aborted: not a failure of the item, which stays owed;
    // only the calls it made are reported.
    // A job stopped part-way keeps what it bought (a review walk's pages): reported with the
    // outcome, so the next read goes on from there; the cause decides as any error would.
    // Halted too: the pages it bought before the halt are paid, and not bought again.
    const partial = thrown instanceof PartialResultError ? { partial: thrown.partial } : {};
    const next = thrown instanceof PartialResultError ? { next: { ...job, spec: thrown.next } } : {};
    if (signal.aborted || deps.halt?.aborted) {
      jobLog().debug('job halted: the run stops');
      return { outcome: { type: 'requeued', job, calls, ...partial }, action: null, ...next };
    }
    const err = thrown instanceof PartialResultError ? thrown.cause : thrown;
    const action = decide(err, attempt);
    switch (action.action) {
      case 'pause':
      case 'retry':
        jobLog().debug({ action: action.action }, 'job goes back to waiting');
        return { outcome: { type: 'requeued', job, calls, ...partial }, action, ...next };
      case 'stop':
        return {
          outcome: { type: 'stop', job, reason: action.reason, message: action.message, calls, ...partial },
          action,
        };
      case 'fail':
        jobLog().warn({ code: action.code, reason: action.reason }, 'job failed');
        return { outcome: { type: 'failed', job, reason: action.reason, code: action.code, calls }, action };
    }
  }
}
