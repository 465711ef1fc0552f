import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The nightly as a BullMQ job scheduler (`fragsync schedule`), run by `fragsync worker`.
 * BullMQ keeps one job per scheduler waiting at a time (the next slot's, made when the
 * previous one starts), so two workers never take one slot, and slots missed while no worker
 * ran leave one overdue job: one catch-up run, not one per missed slot. What BullMQ does not
 * do is keep slots apart: a run still going when the next slot comes would have company. A
 * guard key held while a run goes (taken and renewed with lease-hold.lua, given up with
 * lease-release.lua, the run lease's scripts on a key of its own) makes such a slot skip.
 */
export const SCHEDULE_QUEUE = 'schedule';
export const SCHEDULER_ID = 'nightly';

/** How long the guard lives unrenewed, in ms: a worker killed mid-run frees it after this. */
const GUARD_TTL_MS = 30_000;
const GUARD_RENEW_MS = 10_000;
/** Past slots kept for `schedule show` and tests. */
const KEEP_RECORDS = 100;

const SCRIPTS = {
  hold: readFileSync(new URL('./lua/lease-hold.lua', import.meta.url), 'utf8'),
  release: readFileSync(new URL('./lua/lease-release.lua', import.meta.url), 'utf8'),
};

const guardKey = (prefix: string) => `${prefix}:fragsync:schedule:running`;
const recordsKey = (prefix: string) => `${prefix}:fragsync:schedule:slots`;

export interface ScheduleTiming {
  /** A cron pattern (5 fields, or 6 with seconds first). */
  pattern: string;
  /** IANA time zone of the pattern. */
  tz: string;
}

/** What a scheduled job carries: the sync's flags as given to `schedule set` (never a key). */
export interface ScheduledSync {
  syncArgs: string[];
}

export interface ScheduleInfo extends ScheduleTiming {
  next: Date | null;
  syncArgs: string[];
}

/** What became of one slot. */
export interface SlotRecord {
  jobId: string;
  /** The slot's time (epoch ms), from the job id BullMQ gives it. */
  slotMs: number;
  outcome: 'ran' | 'skipped';
  /** The sync's exit code, for a slot that ran. */
  code: number | null;
  /** For a skipped slot: the job of the run that was still going. */
  busyWith: string | null;
  worker: string;
  startedAt: string;
  endedAt: string;
}

const queueOf = (connection: Redis, prefix: string) => new Queue(SCHEDULE_QUEUE, { connection, prefix });

/** Installs the schedule, or replaces it (one scheduler per queue prefix). */
export async function setSchedule(
  connection: Redis,
  prefix: string,
  timing: ScheduleTiming,
  data: ScheduledSync,
): Promise<ScheduleInfo | null> {
  const queue = queueOf(connection, prefix);
  try {
    await queue.upsertJobScheduler(
      SCHEDULER_ID,
      { pattern: timing.pattern, tz: timing.tz },
      // A failed sync is not retried by BullMQ: the next slot continues where it stopped.
      { name: 'sync', data, opts: { attempts: 1, removeOnComplete: 50, removeOnFail: 50 } },
    );
    return await readSchedule(queue);
  } finally {
    await queue.close();
  }
}

export async function showSchedule(connection: Redis, prefix: string): Promise<ScheduleInfo | null> {
  const queue = queueOf(connection, prefix);
  try {
    return await readSchedule(queue);
  } finally {
    await queue.close();
  }
}

/** Removes the schedule; false when there was none. A run going on is left to finish. */
export async function removeSchedule(connection: Redis, prefix: string): Promise<boolean> {
  const queue = queueOf(connection, prefix);
  try {
    return await queue.removeJobScheduler(SCHEDULER_ID);
  } finally {
    await queue.close();
  }
}

async function readSchedule(queue: Queue): Promise<ScheduleInfo | null> {
  const s = await queue.getJobScheduler(SCHEDULER_ID);
  if (!s?.pattern) return null;
  const data = s.template?.data as ScheduledSync | undefined;
  return {
    pattern: s.pattern,
    tz: s.tz ?? 'UTC',
    next: s.next ? new Date(s.next) : null,
    syncArgs: data?.syncArgs ?? [],
  };
}

/** The latest slots, newest first. */
export async function slotRecords(
  connection: Redis,
  prefix: string,
  n = KEEP_RECORDS,
): Promise<SlotRecord[]> {
  const raw = await connection.lrange(recordsKey(prefix), 0, n - 1);
  return raw.map((r) => JSON.parse(r) as SlotRecord);
}

export interface ScheduleWorkerOptions {
  connection: Redis;
  prefix: string;
  log: Logger;
  /** Runs one sync with these flags; resolves with its exit code. */
  runSync(syncArgs: string[]): Promise<number>;
  /** The worker's errors (default: a warning each); `fragsync worker` says an unreachable Redis once. */
  onError?: (err: Error) => void;
}

/** Takes the scheduled jobs of this prefix, one at a time per process, one at a time overall. */
export function startScheduleWorker(opts: ScheduleWorkerOptions): { close(): Promise<void> } {
  const { connection, prefix, log } = opts;
  const worker = `${hostname()}:${process.pid}`;
  const record = async (r: SlotRecord) => {
    await connection
      .multi()
      .lpush(recordsKey(prefix), JSON.stringify(r))
      .ltrim(recordsKey(prefix), 0, KEEP_RECORDS - 1)
      .exec();
  };
  const processor = async (job: Job<ScheduledSync>) => {
    const jobId = String(job.id);
    const base = {
      jobId,
      slotMs: Number(jobId.split(':').pop()),
      worker,
      startedAt: new Date().toISOString(),
    };
    const holder = String(await connection.eval(SCRIPTS.hold, 1, guardKey(prefix), jobId, GUARD_TTL_MS));
    if (holder !== '') {
      log.warn({ slot: jobId, busyWith: holder }, 'scheduled sync skipped: the previous one is still going');
      await record({
        ...base,
        outcome: 'skipped',
        code: null,
        busyWith: holder,
        endedAt: new Date().toISOString(),
      });
      return { skipped: true };
    }
    const renew = setInterval(() => {
      void connection.eval(SCRIPTS.hold, 1, guardKey(prefix), jobId, GUARD_TTL_MS).catch(() => undefined);
    }, GUARD_RENEW_MS);
    let code: number | null = null;
    try {
      log.info({ slot: jobId }, 'scheduled sync starting');
      code = await opts.runSync(job.data.syncArgs);
      log.info({ slot: jobId, code }, 'scheduled sync ended');
      return { code };
    } finally {
      clearInterval(renew);
      await record({ ...base, outcome: 'ran', code, busyWith: null, endedAt: new Date().toISOString() });
      await connection.eval(SCRIPTS.release, 1, guardKey(prefix), jobId);
    }
  };
  // A worker that dies mid-run must not have its slot started again elsewhere (a stalled job
  // is failed, not retried): the next slot continues what the sync left.
  const w = new Worker<ScheduledSync>(SCHEDULE_QUEUE, processor, {
    connection,
    prefix,
    concurrency: 1,
    maxStalledCount: 0,
  });
  w.on('error', opts.onError ?? ((err) => log.warn({ err }, 'schedule worker error')));
  return { close: () => w.close() };
}
