import { randomUUID } from 'node:crypto';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Governor, GovernorLimits } from '../governor/types.ts';
import { haltsAtOnce } from './error-policy.ts';
import { execute, type ExecuteDeps } from './execute.ts';
import { LeaseWatch } from './lease.ts';
import { ServedRuns } from './served-runs.ts';
import { RedisLossNotice } from './redis-loss.ts';
import { CallSpool } from './spool.ts';
import type { JobOutcome, QueuedJob } from './types.ts';

export const FETCH_QUEUE = 'fetch';
export const LOAD_QUEUE = 'load';

/** The run a worker serves: written to Redis by the coordinator (no secret in it). */
export interface RunInfo {
  runId: string;
  baseUrl: string;
  settings: ExecuteDeps['settings'];
  /** false: a quota pause stops the run instead of waiting for the reset. */
  wait: boolean;
  /**
   * The run's reserve and cent caps, as the sync was told them: every process of the run
   * governs by these, whatever its own config says (a worker started without --max-cents
   * must not spend past the run's cap). Absent in run infos written by older versions.
   */
  limits?: GovernorLimits;
}

export function runInfoKey(prefix: string): string {
  return `${prefix}:fragsync:run`;
}

/**
 * Write what the workers of the run read (only the RunInfo fields of `run`: no secret).
 * Resolves with the id of the run whose info it replaced: one that never closed.
 */
export async function publishRun(redis: Redis, prefix: string, run: RunInfo): Promise<string | null> {
  const { runId, baseUrl, settings, wait, limits } = run;
  const info = JSON.stringify({ runId, baseUrl, settings, wait, limits });
  const previous = await redis.set(runInfoKey(prefix), info, 'GET');
  return previous ? (JSON.parse(previous) as RunInfo).runId : null;
}

export interface FetchWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency: number;
  governor: Governor;
  log: Logger;
  /** The client and settings for a job of the given run (a worker process may serve many runs). */
  depsFor(runId: string): Promise<{ deps: ExecuteDeps; wait: boolean } | null>;
  /** This host's spool folder for the queue prefix (see CallSpool). */
  spoolDir: string;
  /** Job lock duration in ms: a dead worker's jobs go back to waiting after about this long. */
  lockMs: number;
  /** The run lease's length in ms (queue/lease.ts). */
  leaseMs: number;
  /** Where this process says once that Redis lost its data (one per process). */
  notice?: RedisLossNotice;
  /** Say which run it serves and when that run ends (a `fragsync worker`, not the sync's own). */
  announceRuns?: boolean;
}

/**
 * A BullMQ worker of the fetch queue, the same in the coordinator and in `fragsync worker`
 * processes. Each attempt's outcome (its calls, even on failure) goes to the load queue,
 * which only the owner of the warehouse consumes. Quota pauses use BullMQ's rate limit, so
 * every worker of every process stops sending and the job waits without using an attempt.
 * Every request and answer is also written to the process's spool first (queue/spool.ts), so
 * the ledger keeps them when the process dies or Redis loses the report.
 */
export async function startFetchWorker(opts: FetchWorkerOptions): Promise<{
  worker: Worker;
  processed(): number;
  /** Jobs this worker holds now (taken, not yet given back). */
  running(): number;
  /**
   * Make sure every report this process made, and what dead processes left in this host's
   * spool folder, is in Redis as it is now (see CallSpool.check).
   */
  settle(): Promise<void>;
  close(): Promise<void>;
  /**
   * Stop at once, without Redis (SIGTERM while Redis is away, or jobs that would not finish):
   * jobs in hand are left to their lock; their calls stay in the spool for the next process.
   */
  abandon(): void;
}> {
  let processed = 0;
  let running = 0;
  const notice = opts.notice ?? new RedisLossNotice(opts.log);
  const loadQueue = new Queue(LOAD_QUEUE, { connection: opts.connection, prefix: opts.prefix });
  const fetchQueue = new Queue(FETCH_QUEUE, { connection: opts.connection, prefix: opts.prefix });
  for (const q of [loadQueue, fetchQueue]) q.on('error', notice.onWorkerError('queue'));
  // Our own id: the spool checks for this key to know the owner took the report, and sends a
  // report again under it after Redis lost its data (the owner handles an id once).
  const add = async (outcome: JobOutcome, jobId: string = randomUUID()): Promise<string> => {
    await loadQueue.add('outcome', outcome, { jobId, removeOnComplete: true, removeOnFail: 1000 });
    return jobId;
  };
  const spool = await CallSpool.open({
    dir: opts.spoolDir,
    redis: opts.connection,
    prefix: opts.prefix,
    report: (runId, calls) => add({ type: 'ledger', runId, calls }),
    resend: async (outcome, jobId) => void (await add(outcome, jobId)),
    log: opts.log,
    notice,
  }).catch(async (err: unknown) => {
    await loadQueue.close();
    await fetchQueue.close();
    throw err;
  });
  const report = async (outcome: JobOutcome) => spool.reported(outcome, await add(outcome));

  const lease = new LeaseWatch(opts, opts.announceRuns ? new ServedRuns(opts.log) : null);
  const later = async (job: Job, token: string | undefined): Promise<never> => {
    await job.moveToDelayed(Date.now() + opts.leaseMs, token);
    throw new DelayedError();
  };

  const processor = async (
    job: Job<QueuedJob & { attempt?: number }>,
    token?: string,
    signal?: AbortSignal,
  ) => {
    const data = job.data;
    const holder = await lease.holderFor(data.runId);
    // No live run (its sync died, or is between two renewals after a stall): the job waits;
    // the next sync cancels it, or the run's renewed lease brings it back.
    if (holder === null) return later(job, token);
    if (holder !== data.runId) {
      // A cancelled run's (the next sync plans its work again).
      opts.log.debug({ job: job.id, runId: data.runId }, 'job of a cancelled run dropped');
      return;
    }
    const ctx = await opts.depsFor(data.runId);
    if (!ctx) {
      // The run holds the lease but its info is gone: Redis lost its data, and the sync
      // publishes it again as it enqueues what it owes.
      notice.lost({ job: job.id }, "the run's info vanished");
      return later(job, token);
    }
    const attempt = (data.attempt ?? 0) + 1;
    processed++;
    const lost = lease.track(job.id ?? '', data.runId);
    // An answer 402 or 401 here halts the run's other jobs in hand at once, not at this job's
    // end: this one ends of itself and reports the stop (every process learns it sooner from
    // the governor, which refuses the run's admissions once the answer is settled).
    const onRunStop = () => lease.haltRun(data.runId, job.id ?? '');
    const { outcome, action, next } = await execute(
      { ...ctx.deps, spool, halt: lost.signal, onRunStop },
      data,
      attempt,
      signal ?? new AbortController().signal,
    ).finally(() => lease.untrack(job.id ?? ''));
    // Before its report travels: the run's other jobs here send nothing more (a 402, a 401).
    if (outcome.type === 'stop' && haltsAtOnce(outcome.reason)) lease.haltRun(data.runId);
    if (lost.signal.aborted) {
      // The run's lease lapsed, or the run stopped at once (haltRun), with this job in hand:
      // it sent nothing more (requests on the wire were answered).
      const now = await lease.holderFor(data.runId);
      if (now !== data.runId) {
        // The run is gone: its calls reach the ledger under their own run, and the job waits
        // for the run to come back, or for the next run to cancel it.
        await report({ type: 'ledger', runId: data.runId, calls: outcome.calls });
        return now === null ? later(job, token) : undefined;
      }
      if (outcome.type === 'requeued') {
        // What the job bought before the halt (a review walk's pages) goes with it.
        await report(outcome);
        if (next) await job.updateData({ ...data, spec: next.spec });
        return later(job, token);
      }
      // It ended of itself (its last answer came after the halt): handled as any, so what it
      // bought is stored and not bought again (test/e2e/halt-keeps-finished).
    }
    if (action?.action === 'pause') {
      const paused = await opts.governor.pausedUntil();
      const until = paused ?? action.until ?? new Date(Date.now() + 60_000);
      if (!ctx.wait) {
        await report({
          type: 'stop',
          job: data,
          reason: 'quota_exhausted',
          message: `quota exhausted until ${until.toISOString()}`,
          calls: outcome.calls,
          ...(outcome.type === 'requeued' && outcome.partial ? { partial: outcome.partial } : {}),
        });
        return;
      }
      await report(outcome);
      // It goes on from what it bought (a review walk's pages), not from the start.
      if (next) await job.updateData({ ...data, spec: next.spec });
      // Until the governor's pause ends; none when it ended already (a recheck found quota
      // while this job was being refused), else the job would wait for the old reset.
      await fetchQueue.rateLimit(Math.max(1, (paused?.getTime() ?? 0) - Date.now()));
      throw Worker.RateLimitError();
    }
    await report(outcome);
    if (action?.action === 'retry') {
      await job.updateData({ ...data, attempt });
      await job.moveToDelayed(Date.now() + action.delayMs, token);
      throw new DelayedError();
    }
  };

  // BullMQ never closes a connection it was given: this one is ours to close.
  const blocking = opts.connection.duplicate();
  const counted: typeof processor = async (job, token, signal) => {
    running++;
    try {
      return await processor(job, token, signal);
    } finally {
      running--;
    }
  };
  const worker = new Worker(FETCH_QUEUE, counted, {
    connection: blocking,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    // queue.rateLimit() is ignored unless a limiter is configured; this one never binds.
    limiter: { max: 1_000_000, duration: 1000 },
    maximumRateLimitDelay: 1000,
    lockDuration: opts.lockMs,
    stalledInterval: opts.lockMs,
  });
  worker.on('error', notice.onWorkerError('fetch'));
  notice.watch(blocking);
  await lease.start(worker);
  return {
    worker,
    processed: () => processed,
    running: () => running,
    settle: () => spool.check(true),
    abandon: () => {
      lease.stop();
      blocking.disconnect();
      void worker.close(true).catch(() => undefined);
    },
    close: async () => {
      lease.stop();
      await worker.close();
      await spool.close();
      await loadQueue.close();
      await fetchQueue.close();
      blocking.disconnect();
    },
  };
}
