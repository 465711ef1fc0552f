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
import type { Governor, GovernorLimits, GovernorStatus } from './types.ts';
import { DAY_MS } from '../util/calendar-day.ts';
import type { Admission, CallOutcome, CallTicket, RefusalReason } from '../domain/calls.ts';

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
  /** In insertion order, which is expiry order: every ticket lives ticketTtlMs. */
  const tickets = new Map<string, { cents: number; expiresAtMs: number }>();
  let ticketCents = 0;
  let ticketSeq = 0;
  /** Tickets charged at expiry, so a late settle does not charge them twice. */
  const expired = new Map<string, number>();
  const days = new Map<string, number>();
  /** The recheck in flight during a pause (its ticket id), and when the last one was admitted. */
  let probeTicket: string | null = null;
  let probeAtMs = -Infinity;
  let runId = '';
  const runs = new Map<string, { cents: number; calls: number }>();

  const run = () => runs.get(runId) ?? { cents: 0, calls: 0 };
  const offset = (): number => offsetMs ?? 0;
  const localPauseEnd = () => (pauseUntilMs === null ? null : pauseUntilMs - offset() + pauseJitterMs);
  const inFlightCents = () => ticketCents;
  const dropTicket = (id: string): boolean => {
    const t = tickets.get(id);
    if (!t) return false;
    tickets.delete(id);
    ticketCents -= t.cents;
    return true;
  };

  function charge(cents: number, serviceNowMs: number): void {
    const day = utcDay(serviceNowMs);
    days.set(day, (days.get(day) ?? 0) + cents);
    const r = run();
    runs.set(runId, { cents: r.cents + cents, calls: r.calls + 1 });
  }

  function housekeeping(nowMs: number): void {
    // Both maps are in expiry order: stop at the first entry still alive (O(1) per call).
    for (const [id, t] of tickets) {
      if (t.expiresAtMs > nowMs) break;
      // The dead process may have sent the request: count it as spent, never exceed a cap.
      dropTicket(id);
      charge(t.cents, nowMs + offset());
      expired.set(id, nowMs);
    }
    for (const [id, at] of expired) {
      if (at >= nowMs - DAY_MS) break;
      expired.delete(id);
    }
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
    spentCents = run().cents,
    capCents: number | null = null,
  ): Admission {
    return refusal({
      reason,
      untilMs,
      costCents: cost,
      spentCents,
      capCents,
      inFlight: tickets.size,
      inFlightCents: ticketCents,
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
    const cents = inFlightCents();
    const runCents = run().cents;
    if (limits.maxCentsPerRun !== null && runCents + cents + cost > limits.maxCentsPerRun) {
      budgetReached('run_budget', runCents, limits.maxCentsPerRun);
      return refuse('run_budget', cost, null, runCents, limits.maxCentsPerRun);
    }
    const dayCents = limits.maxCentsPerDay === null ? 0 : (days.get(utcDay(serviceNowMs)) ?? 0);
    if (limits.maxCentsPerDay !== null && dayCents + cents + cost > limits.maxCentsPerDay) {
      budgetReached('day_budget', dayCents, limits.maxCentsPerDay);
      const untilMs = nextUtcMidnightMs(serviceNowMs) - offset();
      return refuse('day_budget', cost, untilMs, dayCents, limits.maxCentsPerDay);
    }
    if (recheckMs !== null) {
      // A recheck: one call at a time, at most one per interval, and only during a pause.
      if (pauseUntilMs === null) return refuse('busy', cost, null);
      const due = Math.max(probeAtMs + recheckMs, nowMs);
      if ((probeTicket !== null && tickets.has(probeTicket)) || due > nowMs)
        return refuse('paused', cost, Math.min(due, localPauseEnd() ?? due));
      probeAtMs = nowMs;
      return issue(endpoint, cost, nowMs, true);
    }
    if (pauseUntilMs !== null) return refuse('paused', cost, localPauseEnd());
    if (remaining !== null && remaining <= reserve) {
      startPause(pauseTarget(serviceNowMs));
      return refuse('paused', cost, localPauseEnd());
    }
    const headroom = remaining === null ? 1 - tickets.size : remaining - tickets.size - reserve;
    if (headroom <= 0) return refuse('busy', cost, null);

    return issue(endpoint, cost, nowMs, false);
  }

  function issue(endpoint: EndpointName, cost: number, nowMs: number, probe: boolean): Admission {
    // Ids only need to be unique within this governor, which lives in one process.
    const ticket: CallTicket = { id: `t${++ticketSeq}`, endpoint, costCents: cost };
    tickets.set(ticket.id, { cents: cost, expiresAtMs: nowMs + ticketTtlMs });
    ticketCents += cost;
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

    const wasInFlight = dropTicket(ticket.id);
    const chargedAtExpiry = !wasInFlight && expired.delete(ticket.id);
    // Whether failed calls are billed is unknown: every attempt counts.
    if (!chargedAtExpiry) charge(ticket.costCents, serviceNowMs);

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
    dropTicket(ticket.id);
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
      if (centsToday > (days.get(dayUtc) ?? 0)) days.set(dayUtc, centsToday);
    },
    async startRun(id) {
      if (id === runId) return;
      runId = id;
      runs.set(id, { cents: 0, calls: 0 });
    },
    async status(): Promise<GovernorStatus> {
      const nowMs = now();
      housekeeping(nowMs);
      const end = localPauseEnd();
      return {
        limit,
        remaining,
        resetAt: resetAtMs === null ? null : new Date(resetAtMs),
        reserve: reserveFor(limit, limits),
        inFlight: tickets.size,
        inFlightCents: inFlightCents(),
        pausedUntil: end === null ? null : new Date(end),
        centsToday: days.get(utcDay(nowMs + offset())) ?? 0,
        centsThisRun: run().cents,
        callsThisRun: run().calls,
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
