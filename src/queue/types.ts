import { specId } from '../../jobs/job-id.ts';
import type { JobResult, JobSpec } from '../../jobs/types.ts';
import type { StopReason } from '../domain/run.ts';
import type { ApiCallItem } from '../domain/calls.ts';

/** A job as it travels: its content-derived id, the run that enqueued it, and its spec. */
export interface QueuedJob {
  id: string;
  runId: string;
  spec: JobSpec;
}

/**
 * A job on its way to a driver, whose id (a digest of its content) is computed when the driver
 * asks for it: the in-process queue asks only when the job runs, so the hundreds of thousands
 * of detail jobs waiting behind the profiles of a large catalogue hold no id string each.
 */
export class LazyQueuedJob implements QueuedJob {
  constructor(
    readonly runId: string,
    readonly spec: JobSpec,
  ) {}

  get id(): string {
    return specId(this.spec);
  }
}

/**
 * What one processing attempt of a job produced, reported back to the coordinator (the
 * owner of the warehouse). `calls` are the HTTP requests the attempt sent, failed ones
 * included: every attempt's calls reach the ledger, whatever became of the job.
 */
export type JobOutcome =
  | { type: 'done'; job: QueuedJob; result: JobResult; calls: ApiCallItem[] }
  /** Terminal for this job: recorded as failed, the run goes on. */
  | { type: 'failed'; job: QueuedJob; reason: string; code: string; calls: ApiCallItem[] }
  /**
   * The job goes back to waiting (quota pause, transient retry), or was aborted because the
   * run stops (it stays owed); its calls are reported, and `partial`, what it bought before it
   * stopped (PartialResultError), is stored.
   */
  | { type: 'requeued'; job: QueuedJob; calls: ApiCallItem[]; partial?: JobResult }
  /** The run must stop (budget, 402, 401, quota with --no-wait); the job stays owed, `partial` is stored. */
  | {
      type: 'stop';
      job: QueuedJob;
      reason: StopReason;
      message: string;
      calls: ApiCallItem[];
      partial?: JobResult;
    }
  /**
   * Ledger rows only, of any run, from a worker's spool (queue/spool.ts): reported again
   * after Redis lost its data, or left by a worker that died. Rows already stored are skipped
   * (same call id).
   */
  | { type: 'ledger'; runId: string; calls: ApiCallItem[] };

/**
 * The two execution drivers (in-process and BullMQ) look the same to the coordinator: it
 * submits jobs, receives one outcome per attempt through `onOutcome`, and waits for idle.
 */
export interface QueueDriver {
  readonly name: 'memory' | 'bullmq';
  /**
   * Add jobs. The sync submits a job once per run (Frontier.fresh); BullMQ also ignores an
   * id it still holds, the in-process driver keeps no record of ids.
   */
  submit(jobs: QueuedJob[]): Promise<void>;
  /** Resolves when nothing is waiting or running, or when the driver was stopped. */
  idle(): Promise<void>;
  /**
   * Stop taking jobs; jobs already running finish and report, or with `abort` (a refused key:
   * nothing more may be sent with it; a journal that cannot be written) they are halted: no
   * further request leaves, and those already on the wire finish (Halt, domain/calls.ts).
   */
  stop(abort?: boolean): Promise<void>;
  /** Local time until which nothing is sent (quota pause), or null. */
  pausedUntil(): Date | null;
  /**
   * The governor's pause ended before its time (a recheck found quota left): take jobs again
   * now, in every process, instead of at the reset.
   */
  resume(): Promise<void>;
  counts(): Promise<{ waiting: number; active: number; delayed: number }>;
  /**
   * Jobs waiting to start and running in this process, and how many may run here
   * (queue.concurrency), known without asking anyone (BullMQ: waiting as last counted, within
   * half a second): read at every request, to say why a request slot is idle (api/occupancy.ts).
   */
  backlog?(): Backlog;
  /** Deliver to onOutcome every ledger row still owed before the ledger closes (BullMQ: spools). */
  settle?(): Promise<void>;
  /**
   * Deliver to onOutcome what earlier runs left to report (BullMQ: a killed sync's results
   * waiting in the load queue, and the reports of its jobs still in hand), within a bound;
   * the run plans its jobs after it, so that it does not buy those results again.
   */
  earlierReports?(): Promise<void>;
  close(): Promise<void>;
}

export interface Backlog {
  waiting: number;
  running: number;
  capacity: number;
}

export type OutcomeHandler = (outcome: JobOutcome) => Promise<void> | void;
