import type { Logger } from 'pino';
import { ENDPOINTS, type EndpointName } from '../domain/endpoints.ts';
import {
  budgetNotice,
  checkDay,
  DEFAULT_TICKET_TTL_MS,
  PAUSE_WITHOUT_RESET_MS,
  drawJitterMs,
  nextUtcMidnightMs,
  offsetFrom,
  refusal,
  reserveFor,
  utcDay,
} from './policy.ts';
import { MemoryLedger } from './memory-ledger.ts';
import type { Governor, GovernorLimits, GovernorStatus } from './types.ts';
import {
  haltOf,
  type Admission,
  type CallOutcome,
  type CallTicket,
  type RefusalReason,
} from '../domain/calls.ts';

export interface MemoryGovernorOptions {
  now?: () => number;
  random?: () => number;
  logger?: Logger;
  /** Same rule as the Redis governor, so both behave alike; a leaked ticket frees its slot. */
  ticketTtlMs?: number;
}

/**
 * One process, no Redis: the same rules as src/governor/lua/*.lua, step for step (the
 * shared test suite runs against both). Each method body is synchronous, which makes it
 * atomic under Node's single thread just as a Lua script is in Redis.
 */
export function createMemoryGovernor(limits: GovernorLimits, opts: MemoryGovernorOptions = {}): Governor {
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const ticketTtlMs = opts.ticketTtlMs ?? DEFAULT_TICKET_TTL_MS;
  const log = opts.logger;
  const budgetReached = budgetNotice(log);

  let limit: number | null = null;
  let remaining: number | null = null;
  /** Service clock, epoch ms: identifies the window. */
  let resetAtMs: number | null = null;
  /** Service clock, epoch ms; the local end is this minus the offset plus the jitter. */
  let pauseUntilMs: number | null = null;
  let pauseJitterMs = 0;
  /**
   * Service clock minus local (ms), null until a response tells it or seedSpend seeds the last
   * run's (which stands only until a response tells it): the same as the Redis governor's.
   */
  let offsetMs: number | null = null;
  const books = new MemoryLedger(ticketTtlMs);
  /** The recheck in flight during a pause (its ticket id), and when the last one was admitted. */
  let probeTicket: string | null = null;
  let probeAtMs = -Infinity;
  const offset = (): number => offsetMs ?? 0;
  const localPauseEnd = () => (pauseUntilMs === null ? null : pauseUntilMs - offset() + pauseJitterMs);

  function housekeeping(nowMs: number): void {
    books.expire(nowMs, offset());
    const end = localPauseEnd();
    if (end !== null && nowMs >= end) {
      pauseUntilMs = null;
      pauseJitterMs = 0;
    }
    if (resetAtMs !== null && nowMs + offset() >= resetAtMs) remaining = null;
  }

  function startPause(untilServiceMs: number): boolean {
    if (pauseUntilMs !== null && pauseUntilMs >= untilServiceMs) return false;
    pauseUntilMs = untilServiceMs;
    pauseJitterMs = drawJitterMs(limits, random);
    log?.info({ pausedUntil: new Date(localPauseEnd() ?? 0).toISOString(), remaining }, 'quota pause');
    return true;
  }

  /** The current window's reset, or a 60 s stand-in window when none is known. */
  function pauseTarget(serviceNowMs: number): number {
    if (resetAtMs !== null && resetAtMs > serviceNowMs) return resetAtMs;
    resetAtMs = serviceNowMs + PAUSE_WITHOUT_RESET_MS;
    return resetAtMs;
  }

  /**
   * A refusal of a `cost`-cent call and the facts it is worded by, built only when refusing:
   * admission runs once per request (by a function made once, not closures per admission:
   * tsx names every closure it makes).
   */
  function refuse(
    reason: RefusalReason,
    cost: number,
    untilMs: number | null,
    spentCents = books.run().cents,
    capCents: number | null = null,
  ): Admission {
    return refusal({
      reason,
      untilMs,
      costCents: cost,
      spentCents,
      capCents,
      inFlight: books.inFlight,
      inFlightCents: books.inFlightCents,
      remaining,
      reserve: reserveFor(limit, limits),
    });
  }

  function admitNow(endpoint: EndpointName, recheckMs: number | null = null): Admission {
    const nowMs = now();
    housekeeping(nowMs);
    const serviceNowMs = nowMs + offset();
    const cost = ENDPOINTS[endpoint].costCents;
    const reserve = reserveFor(limit, limits);
    const cents = books.inFlightCents;
    const runCents = books.run().cents;
    if (books.halted) return refuse(books.halted, cost, null, runCents);
    if (limits.maxCentsPerRun !== null && runCents + cents + cost > limits.maxCentsPerRun) {
      budgetReached('run_budget', runCents, limits.maxCentsPerRun);
      return refuse('run_budget', cost, null, runCents, limits.maxCentsPerRun);
    }
    const dayCents = limits.maxCentsPerDay === null ? 0 : (books.days.get(utcDay(serviceNowMs)) ?? 0);
    if (limits.maxCentsPerDay !== null && dayCents + cents + cost > limits.maxCentsPerDay) {
      budgetReached('day_budget', dayCents, limits.maxCentsPerDay);
      const untilMs = nextUtcMidnightMs(serviceNowMs) - offset();
      return refuse('day_budget', cost, untilMs, dayCents, limits.maxCentsPerDay);
    }
    if (recheckMs !== null) {
      // A recheck: one call at a time, at most one per interval, and only during a pause.
      if (pauseUntilMs === null) return refuse('busy', cost, null);
      const due = Math.max(probeAtMs + recheckMs, nowMs);
      if ((probeTicket !== null && books.has(probeTicket)) || due > nowMs)
        return refuse('paused', cost, Math.min(due, localPauseEnd() ?? due));
      probeAtMs = nowMs;
      return issue(endpoint, cost, nowMs, true);
    }
    if (pauseUntilMs !== null) return refuse('paused', cost, localPauseEnd());
    if (remaining !== null && remaining <= reserve) {
      startPause(pauseTarget(serviceNowMs));
      return refuse('paused', cost, localPauseEnd());
    }
    const headroom = remaining === null ? 1 - books.inFlight : remaining - books.inFlight - reserve;
    if (headroom <= 0) return refuse('busy', cost, null);

    return issue(endpoint, cost, nowMs, false);
  }

  function issue(endpoint: EndpointName, cost: number, nowMs: number, probe: boolean): Admission {
    const ticket = books.issue(endpoint, cost, nowMs);
    if (probe) probeTicket = ticket.id;
    return { ok: true, ticket };
  }

  function settleNow(ticket: CallTicket, outcome: CallOutcome): void {
    const nowMs = now();
    const rl = outcome.rateLimit;
    const told = offsetFrom(rl.serverDate?.getTime() ?? null, rl.resetAt?.getTime() ?? null, nowMs);
    if (told !== null) offsetMs = told;
    housekeeping(nowMs);
    const serviceNowMs = nowMs + offset();
    // Whether failed calls are billed is unknown: every attempt counts.
    // The ticket's run, not the current one when another has started since (lua/settle.lua).
    const run = books.run(ticket.runId);
    if (books.settled(ticket.id)) books.charge(ticket.costCents, serviceNowMs, ticket.runId);
    run.halted ??= haltOf(outcome.status);

    if (rl.limit !== null) limit = rl.limit;
    const reset = rl.resetAt ? rl.resetAt.getTime() : null;
    if (ticket.id === probeTicket) {
      probeTicket = null;
      if (outcome.status >= 200 && outcome.status < 300 && settleRecheck(reset, rl.remaining, serviceNowMs))
        return;
    }
    if (reset !== null && reset > serviceNowMs) {
      if (resetAtMs === null || reset > resetAtMs) {
        resetAtMs = reset;
        remaining = rl.remaining;
      } else if (reset === resetAtMs && rl.remaining !== null) {
        remaining = remaining === null ? rl.remaining : Math.min(remaining, rl.remaining);
      }
    } else if (reset === null && rl.remaining !== null) {
      remaining = remaining === null ? rl.remaining : Math.min(remaining, rl.remaining);
    }

    if (outcome.status === 429) {
      const target = reset !== null && reset > serviceNowMs ? reset : pauseTarget(serviceNowMs);
      if (target === resetAtMs) remaining = 0;
      startPause(target);
    } else if (remaining !== null && remaining <= reserveFor(limit, limits)) {
      startPause(pauseTarget(serviceNowMs));
    }
  }

  /**
   * A recheck answered: its remaining is news (the quota may have been raised), not one more
   * reading to take the lowest of. Ends the pause when it leaves more than the reserve.
   */
  function settleRecheck(reset: number | null, told: number | null, serviceNowMs: number): boolean {
    if (reset !== null && reset <= serviceNowMs) return false;
    if (reset !== null && (resetAtMs === null || reset >= resetAtMs)) resetAtMs = reset;
    remaining = told;
    if (told !== null && told <= reserveFor(limit, limits)) return false;
    pauseUntilMs = null;
    pauseJitterMs = 0;
    log?.info({ remaining, limit }, 'quota pause ended: a recheck found quota left');
    return true;
  }

  function releaseNow(ticket: CallTicket): void {
    housekeeping(now());
    books.drop(ticket.id);
  }

  return {
    admit: async (endpoint) => admitNow(endpoint),
    recheck: async (endpoint, intervalMs) => admitNow(endpoint, Math.max(0, intervalMs)),
    settle: async (ticket, outcome) => settleNow(ticket, outcome),
    release: async (ticket) => releaseNow(ticket),
    // The client's calls use these: the same functions, without a promise each.
    now: { admit: (endpoint) => admitNow(endpoint), settle: settleNow, release: releaseNow },
    async seedSpend(centsToday, dayUtc, clockOffsetMs) {
      checkDay(dayUtc);
      // Until a response tells the offset, as in the Redis governor.
      if (clockOffsetMs !== undefined) offsetMs ??= Math.round(clockOffsetMs);
      if (centsToday > (books.days.get(dayUtc) ?? 0)) books.days.set(dayUtc, centsToday);
    },
    startRun: async (id) => books.startRun(id),
    async status(): Promise<GovernorStatus> {
      const nowMs = now();
      housekeeping(nowMs);
      const end = localPauseEnd();
      return {
        limit,
        remaining,
        resetAt: resetAtMs === null ? null : new Date(resetAtMs),
        reserve: reserveFor(limit, limits),
        inFlight: books.inFlight,
        inFlightCents: books.inFlightCents,
        pausedUntil: end === null ? null : new Date(end),
        centsToday: books.days.get(utcDay(nowMs + offset())) ?? 0,
        centsThisRun: books.run().cents,
        callsThisRun: books.run().calls,
        maxCentsPerRun: limits.maxCentsPerRun,
        maxCentsPerDay: limits.maxCentsPerDay,
        clockOffsetMs: offset(),
      };
    },
    async pausedUntil() {
      housekeeping(now());
      const end = localPauseEnd();
      return end === null ? null : new Date(end);
    },
    async close() {},
  };
}
