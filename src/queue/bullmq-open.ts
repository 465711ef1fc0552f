import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Governor, GovernorLimits } from '../governor/types.ts';
import type { ExecuteDeps } from './execute.ts';
import { FETCH_QUEUE, LOAD_QUEUE, publishRun, startFetchWorker } from './fetch-worker.ts';
import { cancelPrevious, RunLease } from './takeover.ts';
import { RedisLossNotice } from './redis-loss.ts';
import type { JobOutcome, OutcomeHandler } from './types.ts';

export interface BullmqDriverOptions {
  connection: Redis;
  redisUrl: string;
  prefix: string;
  runId: string;
  baseUrl: string;
  settings: ExecuteDeps['settings'];
  deps: ExecuteDeps;
  governor: Governor;
  /** The run's governor limits, published to the workers with the run (RunInfo). */
  limits: GovernorLimits;
  /** Fetch jobs at once in this process's own worker. */
  concurrency: number;
  /** Also fetch in this process (true), or leave it to `fragsync worker` processes. */
  localWorker: boolean;
  /** This host's spool folder for the queue prefix (queue/spool.ts). */
  spoolDir: string;
  /** How long a worker's job lock lasts, in ms: a killed worker's jobs are taken over after it. */
  lockMs: number;
  /** The run lease's length in ms (queue/lease.ts): a killed sync's jobs stop within about this long. */
  leaseMs: number;
  wait: boolean;
  onOutcome: OutcomeHandler;
  onPause?: (until: Date) => void;
  /** Called when the shared pause ends (seen within a second); it may submit jobs. */
  onResume?: () => Promise<void>;
  log: Logger;
}

/** What a BullMQ run holds in Redis while it goes on, for BullmqDriver to drive. */
export interface OpenedQueues {
  fetchQueue: Queue;
  /** The load queue, for its counts (its jobs are taken by loadWorker). */
  loadQueue: Queue;
  loadWorker: Worker;
  loadConnection: Redis;
  /** This process's own fetch worker (BullmqDriverOptions.localWorker), or null. */
  fetchWorker: { running(): number; settle(): Promise<void>; close(): Promise<void> } | null;
  lease: RunLease;
  notice: RedisLossNotice;
  /** When this run took over from one that had not ended (see earlierReports), or null. */
  earlier: number | null;
}

/**
 * Everything a BullMQ run sets up before its driver exists, in this order: the run lease
 * (waiting out a live sync's), the run's info for the workers, the queue an earlier run left
 * cancelled, the load worker whose reports go to `receive`, and this process's fetch worker.
 */
export async function openQueues(
  opts: BullmqDriverOptions,
  on: {
    /** The lease was lost: the run must stop. */
    lost: () => void;
    /** A report from the load queue; it may come before the driver exists (a spool adopted at start). */
    receive: (outcome: JobOutcome, reportId: string | undefined) => Promise<void>;
  },
): Promise<OpenedQueues> {
  const { lease, waitedFor } = await RunLease.take({
    redis: opts.connection,
    prefix: opts.prefix,
    runId: opts.runId,
    leaseMs: opts.leaseMs,
    log: opts.log,
    onLost: on.lost,
  });
  const previous = await publishRun(opts.connection, opts.prefix, opts);
  const fetchQueue = new Queue(FETCH_QUEUE, { connection: opts.connection, prefix: opts.prefix });
  const loadQueue = new Queue(LOAD_QUEUE, { connection: opts.connection, prefix: opts.prefix });
  const queues = { fetch: fetchQueue, load: loadQueue };
  await cancelPrevious(queues, previous ?? waitedFor, waitedFor !== null, opts.log);
  const loadConnection = opts.connection.duplicate();
  const loadWorker = new Worker(LOAD_QUEUE, async (job: Job<JobOutcome>) => on.receive(job.data, job.id), {
    // Reports a killed owner was taking are stalled: the next owner gets them after the lock.
    connection: loadConnection,
    prefix: opts.prefix,
    concurrency: 64,
    lockDuration: opts.lockMs,
    stalledInterval: opts.lockMs,
  });
  const notice = new RedisLossNotice(opts.log);
  loadWorker.on('error', notice.onWorkerError('load'));
  const fetchWorker = opts.localWorker
    ? await startFetchWorker({
        connection: opts.connection,
        prefix: opts.prefix,
        concurrency: opts.concurrency,
        governor: opts.governor,
        log: opts.log,
        spoolDir: opts.spoolDir,
        lockMs: opts.lockMs,
        leaseMs: opts.leaseMs,
        notice,
        depsFor: async (runId) => (runId === opts.runId ? { deps: opts.deps, wait: opts.wait } : null),
      })
    : null;
  // Taken over from a run that had not ended: when (see earlierReports).
  const earlier = (previous ?? waitedFor) !== null ? Date.now() : null;
  return { fetchQueue, loadQueue, loadWorker, loadConnection, fetchWorker, lease, notice, earlier };
}
