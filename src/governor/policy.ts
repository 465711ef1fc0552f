import type { Logger } from 'pino';
import { FragsyncError } from '../errors.ts';
import { DAY_MS } from '../util/calendar-day.ts';
import type { GovernorLimits } from './types.ts';
import type { Admission, RefusalReason } from '../domain/calls.ts';

/**
 * Rules shared by the in-memory and the Redis governor (the Lua scripts repeat the numeric
 * ones; the shared test suite keeps both in step).
 */

/** A 429 that names no reset time (and no window is known): wait this long, then probe again. */
export const PAUSE_WITHOUT_RESET_MS = 60_000;

/** A ticket not settled or released within this time is taken as lost (its process died). */
export const DEFAULT_TICKET_TTL_MS = 60_000;

/** Slack for whole-second headers when checking that a reset lies within a day of the Date. */
export const DATE_RESET_SLACK_MS = 60_000;

/**
 * The clock offset a response tells (service Date minus local now), or null when its Date
 * cannot be trusted as the service's clock. The reset is the service's next midnight, so on
 * the service's clock it lies within one day after the Date; a response whose reset does not
 * carries a Date from another clock (a simulator running a compressed day shows its service
 * time there but names resets in real time), and applying it would move the pause end by
 * months.
 */
export function offsetFrom(
  serverDateMs: number | null,
  resetAtMs: number | null,
  nowMs: number,
): number | null {
  // No reset header: not the service's answer (it sends one on every response, 429 included)
  // but another server's at a wrong base URL, or a proxy's error page: its Date is another
  // clock, and recorded it would move the service's day (status, plan, the day cap) until the
  // next good run.
  if (serverDateMs === null || resetAtMs === null) return null;
  const ahead = resetAtMs - serverDateMs;
  if (ahead <= -DATE_RESET_SLACK_MS || ahead > DAY_MS + DATE_RESET_SLACK_MS) return null;
  return serverDateMs - nowMs;
}

/** Quota calls left untouched for the account's other applications. */
export function reserveFor(limit: number | null, limits: GovernorLimits): number {
  if (limit === null) return limits.reserveCalls;
  return Math.max(limits.reserveCalls, Math.ceil((limit * limits.reservePercent) / 100));
}

/** The jitter for a pause that begins now: drawn once, so every worker resumes at the same time. */
export function drawJitterMs(limits: GovernorLimits, random: () => number): number {
  return Math.floor(Math.max(0, Math.min(1, random())) * Math.max(0, limits.resumeJitterMs));
}

/** YYYY-MM-DD of an epoch time in UTC. */
let dayCache: { startMs: number; day: string } = { startMs: NaN, day: '' };

/** YYYY-MM-DD (UTC) of an instant; called per request, so the current day is cached. */
export function utcDay(epochMs: number): string {
  if (epochMs >= dayCache.startMs && epochMs < dayCache.startMs + DAY_MS) return dayCache.day;
  const day = new Date(epochMs).toISOString().slice(0, 10);
  dayCache = { startMs: Date.parse(`${day}T00:00:00.000Z`), day };
  return day;
}

/** seedSpend's day must be the ledger's YYYY-MM-DD (UTC), as the day keys are. */
export function checkDay(dayUtc: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dayUtc)) {
    throw new FragsyncError('INTERNAL', `seedSpend: day must be YYYY-MM-DD, got ${dayUtc}`);
  }
}

export function nextUtcMidnightMs(epochMs: number): number {
  return (Math.floor(epochMs / DAY_MS) + 1) * DAY_MS;
}

export interface RefusalFacts {
  reason: RefusalReason;
  /** Local epoch ms at which trying again makes sense, or null. */
  untilMs: number | null;
  costCents: number;
  spentCents: number;
  inFlightCents: number;
  capCents: number | null;
  inFlight: number;
  remaining: number | null;
  reserve: number;
}

/** One refusal, worded the same by both implementations. */
export function refusal(f: RefusalFacts): Admission {
  const until = f.untilMs === null ? null : new Date(f.untilMs);
  return { ok: false, reason: f.reason, until, message: refusalMessage(f, until) };
}

function refusalMessage(f: RefusalFacts, until: Date | null): string {
  const at = until ? until.toISOString() : 'unknown';
  switch (f.reason) {
    case 'paused':
      return `quota paused until ${at} (remaining ${f.remaining ?? 'unknown'}, reserve ${f.reserve})`;
    case 'busy':
      return f.remaining === null
        ? 'quota remaining unknown: one probe call is in flight, retry when it settles'
        : `calls in flight (${f.inFlight}) hold what remains above the reserve (remaining ${f.remaining}, reserve ${f.reserve})`;
    case 'run_budget':
      return `run budget reached: ${f.spentCents} cents spent this run and ${f.inFlightCents} in flight; a ${f.costCents}-cent call would exceed the cap of ${f.capCents} cents`;
    case 'day_budget':
      return `day budget reached: ${f.spentCents} cents spent today and ${f.inFlightCents} in flight; a ${f.costCents}-cent call would exceed the cap of ${f.capCents} cents (resets ${at})`;
    case 'payment_required':
      return 'the run stopped at once: a call of this run was answered 402 (payment required); this request was not sent';
    case 'unauthorized':
      return 'the run stopped at once: a call of this run was answered 401 (unauthorized); this request was not sent';
  }
}

/**
 * Logs a cap's refusal once for the same facts: when a cap is reached every job that asks
 * next is refused with the same spent and cap (a capped run logged the same warning 25
 * times in a row); a refusal after more was spent, or another run's, logs again.
 */
export function budgetNotice(
  log: Logger | undefined,
): (reason: RefusalReason, spentCents: number, capCents: number | null) => void {
  let last = '';
  return (reason, spentCents, capCents) => {
    const key = `${reason}|${spentCents}|${capCents}`;
    if (key === last) return;
    last = key;
    log?.warn(
      { reason, spentCents, capCents },
      reason === 'day_budget' ? 'day budget reached' : 'run budget reached',
    );
  };
}
