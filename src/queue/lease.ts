import { readFileSync } from 'node:fs';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Halt } from '../domain/calls.ts';
import { ConfigError } from '../errors.ts';
import type { ServedRuns } from './served-runs.ts';

/**
 * A run's lease on its queue prefix. The sync process holds it and renews it; a sync killed
 * with SIGKILL stops renewing, and within one lease (queue.leaseMs) the workers of every
 * process see no live run: they stop taking jobs and abort the ones in hand
 * (fetch-worker.ts), so a dead run costs the calls in flight plus one lease of throughput
 * instead of its whole queue. The next sync takes the lease once it lapsed (a live holder
 * renews it: that is another sync on the same prefix, refused).
 */

/**
 * Of a lease of `leaseMs`: the key lives 60% of it, renewed every 20% (two renewals may be
 * late before it lapses), and workers read it every 10%, so a killed sync's jobs are aborted
 * at most about 70% of the lease after the kill, the rest being room for a busy machine.
 */
const ttlOf = (leaseMs: number) => Math.round(leaseMs * 0.6);
const renewEvery = (leaseMs: number) => Math.max(50, Math.round(leaseMs * 0.2));
export const checkEvery = (leaseMs: number) => Math.max(50, Math.round(leaseMs * 0.1));

const SCRIPTS = {
  hold: readFileSync(new URL('./lua/lease-hold.lua', import.meta.url), 'utf8'),
  release: readFileSync(new URL('./lua/lease-release.lua', import.meta.url), 'utf8'),
};

export function leaseKey(prefix: string): string {
  return `${prefix}:fragsync:lease`;
}

/** '' when held by `runId` now, else the id of the run that holds it. */
async function hold(redis: Redis, prefix: string, runId: string, leaseMs: number): Promise<string> {
  return String(await redis.eval(SCRIPTS.hold, 1, leaseKey(prefix), runId, ttlOf(leaseMs)));
}

export interface LeaseOptions {
  redis: Redis;
  prefix: string;
  runId: string;
  leaseMs: number;
  log: Logger;
  /** Another run took the lease while this one held it (it lapsed: this process was stalled). */
  onLost(holder: string): void;
}

export class RunLease {
  private timer: NodeJS.Timeout | null = null;
  private lost = false;

  private constructor(private readonly opts: LeaseOptions) {}

  /**
   * Take the lease, waiting for a previous holder's to lapse (a sync killed less than a
   * lease ago). Resolves with the previous holder's id when there was one. A holder that keeps
   * renewing is a live sync on this queue prefix: refused with one line.
   */
  static async take(opts: LeaseOptions): Promise<{ lease: RunLease; waitedFor: string | null }> {
    const { redis, prefix, runId, leaseMs } = opts;
    let waitedFor: string | null = null;
    // Past one lease, a holder still there renewed it: it is alive.
    const deadline = Date.now() + leaseMs;
    for (;;) {
      const holder = await hold(redis, prefix, runId, leaseMs);
      if (holder === '') break;
      if (waitedFor !== null && holder === waitedFor && Date.now() > deadline)
        throw new ConfigError(
          `queue prefix '${prefix}' is in use by run ${holder}, which is still running (another sync with this --queue-prefix): wait for it, or give this warehouse its own prefix`,
          { prefix, holder },
        );
      if (holder !== waitedFor) opts.log.info({ holder }, 'waiting for the previous run lease to lapse');
      waitedFor = holder;
      await new Promise((r) => setTimeout(r, checkEvery(leaseMs)));
    }
    const lease = new RunLease(opts);
    lease.timer = setInterval(() => void lease.renew(), renewEvery(leaseMs));
    lease.timer.unref();
    return { lease, waitedFor };
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    const { redis, prefix, runId, leaseMs } = this.opts;
    // A Redis that is away or lost its data: the next renewal sets the lease again.
    const holder = await hold(redis, prefix, runId, leaseMs).catch(() => '');
    if (holder === '') return;
    this.lost = true;
    this.opts.log.error({ holder }, 'the run lease lapsed and another run took it: stopping');
    this.opts.onLost(holder);
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const { redis, prefix, runId } = this.opts;
    await redis.eval(SCRIPTS.release, 1, leaseKey(prefix), runId).catch(() => undefined);
  }
}

const LAPSED = 'the run lease lapsed';
const STOPPED = 'the run stops';

/**
 * What a worker knows of the run lease, read ten times per lease: with no
 * live run the worker takes no jobs (a local pause), and the jobs in hand of a run that no
 * longer holds the lease are halted: they send no further request, and those on the wire
 * are answered and ledgered (aborting them would leave unknowable whether the service
 * counted them).
 *
 * A lease gone before it could have lapsed by itself was deleted, not left to lapse: Redis
 * lost its data (FLUSHALL, a restart without persistence), and its holder, alive, sets it
 * again at its next renewal. Until the time it would have lapsed at the earliest, the run
 * still counts as holding it, so the jobs in hand finish and report their results instead
 * of being halted and bought again; a holder that died meanwhile loses its jobs no later
 * than its lease would have lapsed.
 */
export class LeaseWatch {
  private holder: string | null = null;
  /** The last run seen holding the lease, and the local time before which it cannot have lapsed. */
  private seen: { runId: string; until: number } | null = null;
  private readonly inHand = new Map<string, { runId: string; halt: Halt }>();
  /** Runs a job here stopped at once (haltRun): a run id is never reused, so they are kept. */
  private readonly stopped = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private worker: Worker | null = null;
  private idleSaid = false;

  constructor(
    private readonly opts: { connection: Redis; prefix: string; leaseMs: number; log: Logger },
    /** A `fragsync worker`'s: what it says of the runs it serves. */
    private readonly served: ServedRuns | null = null,
  ) {}

  async start(worker: Worker): Promise<void> {
    this.worker = worker;
    await this.check();
    this.timer = setInterval(() => void this.check().catch(() => undefined), checkEvery(this.opts.leaseMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The holder, read again from Redis unless the last reading already says `runId`. */
  async holderFor(runId: string): Promise<string | null> {
    if (this.holder !== runId) {
      this.holder = await this.read();
      this.served?.holder(this.holder);
    }
    return this.holder;
  }

  /**
   * The lease's holder, or the run that held it when it vanished before it could have lapsed
   * (see the class comment), or null. The key's remaining life is read with it: it lapses
   * no sooner than that after the request left.
   */
  private async read(): Promise<string | null> {
    const key = leaseKey(this.opts.prefix);
    const sentAt = Date.now();
    const replies = await this.opts.connection.multi().get(key).pttl(key).exec();
    const holder = (replies?.[0]?.[1] as string | null | undefined) ?? null;
    const ttl = Number(replies?.[1]?.[1]);
    if (holder !== null) {
      this.seen = ttl > 0 ? { runId: holder, until: sentAt + ttl } : null;
      return holder;
    }
    return this.seen && Date.now() < this.seen.until ? this.seen.runId : null;
  }

  track(jobId: string, runId: string): Halt {
    const halt = new Halt();
    this.inHand.set(jobId, { runId, halt });
    this.served?.attempt(runId);
    if (this.holder !== runId) halt.halt(LAPSED);
    else if (this.stopped.has(runId)) halt.halt(STOPPED);
    return halt;
  }

  /**
   * A job here answered with a stop that halts at once (error-policy.ts haltsAtOnce: a 402,
   * a 401): the run's jobs in hand in this process send nothing more, and none it still
   * takes before the run's sync pauses the queue sends anything. Requests on the wire are
   * answered and ledgered; the jobs wait as after a lapsed lease, and the next run plans them.
   * `except`, the job that read the answer, is not halted: it ends of itself and reports the
   * stop (a halted one would report only 'requeued', and the sync would not learn of it).
   * Only the first call halts: a second job reading a 402 at the same moment must not halt
   * the first one's (each halting the other, neither would report the stop).
   */
  haltRun(runId: string, except?: string): void {
    if (this.stopped.has(runId)) return;
    this.stopped.add(runId);
    for (const [jobId, job] of this.inHand)
      if (job.runId === runId && jobId !== except) job.halt.halt(STOPPED);
  }

  untrack(jobId: string): void {
    this.inHand.delete(jobId);
  }

  private async check(): Promise<void> {
    const holder = await this.read();
    this.holder = holder;
    this.served?.holder(holder);
    for (const { runId, halt } of this.inHand.values()) if (runId !== holder) halt.halt(LAPSED);
    const w = this.worker;
    if (!w) return;
    if (holder === null && !w.isPaused()) {
      if (!this.idleSaid) this.opts.log.info('no live run on this queue: waiting for one');
      this.idleSaid = true;
      await w.pause(true);
    } else if (holder !== null && w.isPaused()) {
      this.idleSaid = false;
      void w.resume();
    }
  }
}
