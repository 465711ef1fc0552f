import type { JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { checkEvery } from './lease.ts';

// The driver takes the lease and then what the runs before left: one import for both.
export { RunLease } from './lease.ts';

/**
 * What a run finds of the runs before it on its queue prefix, once it holds the lease
 * (lease.ts): their queue to cancel, their reports to wait for, the jobs still in hand.
 */

/**
 * A new run never inherits the queue: what the previous run left (killed, so it never closed)
 * is cancelled, and the plan owes it again from the warehouse. Reports the dead sync was
 * taking from the load queue when it died are handed back at once (this run holds the lease:
 * no other owner lives), not after their lock lapses (queue.lockMs): they carry ledger rows.
 * Said in one line when there was such a run or anything left.
 */
export async function cancelPrevious(
  queues: { fetch: Queue; load: Queue },
  previous: string | null,
  leaseWasLive: boolean,
  log: Logger,
): Promise<void> {
  const c = await queues.fetch.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
  const left = (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0);
  await queues.fetch.drain(true);
  await queues.fetch.resume();
  let reports = 0;
  // Without a token BullMQ moves an active job back to waiting whoever holds its lock.
  for (const job of await queues.load.getJobs(['active'])) if ((await job.moveToWait()) >= 0) reports++;
  if (previous === null && left === 0 && reports === 0) return;
  log.warn(
    {
      previousRun: previous,
      jobsCancelled: left,
      inHand: c.active ?? 0,
      reportsHandedBack: reports,
      leaseWasLive,
    },
    `previous run ${previous ?? '(unknown)'} did not end: its queue is cancelled (${left} jobs waiting dropped, ${c.active ?? 0} in hand aborted by its lapsed lease, ${reports} reports it was loading taken over); this run plans what they owed from the warehouse`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A load job's states until it is handled (a handled one is removed, or kept as failed). */
const PENDING: JobType[] = ['waiting', 'prioritized', 'active', 'delayed'];

/**
 * Before a run submits anything, the load jobs are earlier runs' (their results, or ledger
 * rows a spool reports): waits until each of them was handled (onOutcome), so that the run
 * plans without what they fetched. Only those: the jobs they make owed are submitted
 * meanwhile, and report too. `since`: when the run took the lease from a run that had not
 * ended (null: none). Every live worker reads the lease within checkEvery and halts that
 * run's jobs in hand; a halted job reports ledger rows only (fetch-worker.ts), so its
 * results are all in the load queue by then. At most `boundMs` (a minute): a report that comes later
 * is handled as before, its job perhaps bought again meanwhile.
 */
export async function earlierReports(
  load: Queue,
  opts: { since: number | null; leaseMs: number; boundMs?: number; log: Logger },
): Promise<void> {
  const deadline = Date.now() + (opts.boundMs ?? 60_000);
  if (opts.since !== null) await sleep(opts.since + 2 * checkEvery(opts.leaseMs) - Date.now());
  const earlier = new Set(await load.getRanges(PENDING));
  while (earlier.size > 0) {
    const pending = new Set(await load.getRanges(PENDING));
    for (const id of earlier) if (!pending.has(id)) earlier.delete(id);
    if (earlier.size === 0) return;
    if (Date.now() > deadline) {
      opts.log.info(
        { reports: earlier.size },
        'reports of an earlier run not loaded yet: the run plans without them',
      );
      return;
    }
    await sleep(50);
  }
}

/**
 * Jobs of `queue` in hand in a live process: active, and their lock still held (a dead
 * process's lock lapses after queue.lockMs; it has nothing more to report: its calls are in
 * its spool, which the next process on its host reports).
 */
export async function jobsInHand(queue: Queue, redis: Redis, prefix: string): Promise<number> {
  const active = await queue.getJobs(['active']);
  if (active.length === 0) return 0;
  const held = await redis.exists(...active.map((j) => `${prefix}:${queue.name}:${j.id}:lock`));
  return held;
}
