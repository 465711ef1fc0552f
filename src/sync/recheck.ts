import type { Logger } from 'pino';
import type { FragranceClient } from '../api/client.ts';
import type { Governor } from '../governor/types.ts';
import type { StopReason } from '../domain/run.ts';
import { isHaltReason } from '../domain/calls.ts';
import { decide, haltsAtOnce } from '../queue/error-policy.ts';

export interface QuotaRecheckOptions {
  governor: Governor;
  /** The sync's client: the recheck's call is journaled and ledgered like any other. */
  client: FragranceClient;
  /** quota.recheckMs: one check per this interval at most, across every process of the run. */
  intervalMs: number;
  log: Logger;
  /** The governor's pause ended early: the driver takes jobs again (QueueDriver.resume). */
  resume(): Promise<void>;
  /**
   * The run cannot go on (a 402 or a 401: the recheck's own answer, or the governor's refusal
   * after another request's; or its cent cap spent): stop it as a job's stop outcome would.
   * While paused no job runs to report it, and the run would otherwise wait for the reset
   * only to stop then.
   */
  stop(reason: StopReason, message: string): Promise<void>;
}

/**
 * While a quota pause is in force, read the account's quota again every interval instead of
 * trusting the reset alone: the account's owner may raise the quota (or another application
 * stop spending) hours before it. The spec offers no free account or usage endpoint, and every
 * answer, a 429 included, carries the X-RateLimit headers; so a check is one GET /v1/accords
 * with limit 1, the cheapest call (1 cent, one quota unit when answered 200, its answer the
 * smallest), admitted by the governor's recheck (one at a time, one per interval in every
 * process) and never retried. A 429 leaves the pause as it was; an answer with more than the
 * reserve left ends it in the governor, and then here in the driver.
 */
export class QuotaRecheck {
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private stopped = false;
  /** Rechecks sent (each one request, recorded in api_calls). */
  sent = 0;

  constructor(private readonly opts: QuotaRecheckOptions) {}

  /**
   * Before the run's first job: a pause an earlier run left in the shared governor (Redis) is
   * checked at once, so a quota raised since is used even with --no-wait (one call at most).
   */
  async atStart(): Promise<void> {
    if ((await this.opts.governor.pausedUntil()) !== null) await this.check(false);
  }

  /** A pause began (or was seen): the first check comes one interval later. */
  paused(): void {
    if (this.timer === null && !this.checking && !this.stopped) this.schedule(this.opts.intervalMs);
  }

  /** The pause ended (reset or recheck): no more checks until the next one. */
  resumed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  stop(): void {
    this.stopped = true;
    this.resumed();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check();
    }, ms);
    this.timer.unref();
  }

  private async halt(reason: StopReason, message: string): Promise<void> {
    this.stop();
    this.opts.log.warn({ reason }, `quota recheck: the run stops (${message})`);
    await this.opts.stop(reason, message);
  }

  private async check(again = true): Promise<void> {
    const { governor, intervalMs, log } = this.opts;
    this.checking = true;
    let next: number | null = again ? intervalMs : null;
    try {
      const a = await governor.recheck('listAccords', intervalMs);
      if (!a.ok) {
        // 'busy': no pause any more. 'paused': another process checked lately, or one is in
        // flight: look again when the next one is due. The run's cent cap, spent (by the
        // rechecks themselves, 1 cent each): no request of the run fits any more, at the reset
        // either, so it stops now. The day's cap opens at the service's midnight, the quota's
        // reset: waiting for it is right.
        if (isHaltReason(a.reason)) return await this.halt(a.reason, a.message);
        if (a.reason === 'run_budget') return await this.halt('budget_exhausted', a.message);
        if (!again) return;
        next = a.reason === 'paused' ? Math.max(50, (a.until?.getTime() ?? 0) - Date.now()) : null;
        if (a.reason !== 'busy' && a.reason !== 'paused') next = intervalMs;
        return;
      }
      this.sent++;
      const res = await this.opts.client
        .withTicket(a.ticket)
        .listAccords({ page: 1, limit: 1 })
        .catch((err: unknown) => ({ err }));
      const failed = 'err' in res ? decide(res.err, 1) : null;
      if (failed?.action === 'stop' && haltsAtOnce(failed.reason))
        return await this.halt(failed.reason, failed.message);
      if ((await governor.pausedUntil()) !== null) {
        log.info(
          { rechecks: this.sent, ...('err' in res ? {} : { remaining: res.rateLimit.remaining }) },
          'quota recheck: still paused',
        );
        return;
      }
      next = null;
      log.info({ rechecks: this.sent }, 'quota recheck found quota left: resuming before the reset');
      await this.opts.resume();
    } catch (err) {
      log.warn({ err }, 'quota recheck failed; trying again at the next interval');
    } finally {
      this.checking = false;
      if (next !== null) this.schedule(next);
    }
  }
}

/**
 * The fetch stage's view of a quota pause: until when, how long pauses lasted in all (the
 * ETA's rate leaves that time out), and the recheck that may end one early.
 */
export class QuotaPause {
  until: Date | null = null;
  private startedMs = 0;
  private earlierMs = 0;

  constructor(
    private readonly recheck: QuotaRecheck | null = null,
    /** quota.wait: without it a pause stops the run, and nothing is rechecked. */
    private readonly wait = false,
  ) {}

  began(until: Date): void {
    if (!this.until) this.startedMs = Date.now();
    this.until = until;
    if (this.wait) this.recheck?.paused();
  }

  ended(): void {
    if (this.until) this.earlierMs += Date.now() - this.startedMs;
    this.until = null;
    this.recheck?.resumed();
  }

  /** Time spent paused so far, the current pause included. */
  pausedMs(): number {
    return this.earlierMs + (this.until ? Date.now() - this.startedMs : 0);
  }

  /** See QuotaRecheck.atStart. */
  async atStart(): Promise<void> {
    await this.recheck?.atStart();
  }

  /** No more rechecks: the run is done or interrupted. */
  stop(): void {
    this.recheck?.stop();
  }
}

/** Whether the quota window a pause waited for has reset (the service clock is past it). */
export async function windowReset(governor: Governor): Promise<boolean> {
  const s = await governor.status();
  return s.resetAt === null || s.resetAt.getTime() <= Date.now() + s.clockOffsetMs;
}
