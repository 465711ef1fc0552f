import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ENDPOINTS } from '../domain/endpoints.ts';
import { FragsyncError } from '../errors.ts';
import {
  DEFAULT_TICKET_TTL_MS,
  budgetNotice,
  checkDay,
  drawJitterMs,
  offsetFrom,
  refusal,
  reserveFor,
} from './policy.ts';
import type { Governor, GovernorLimits, GovernorStatus } from './types.ts';
import type { Admission, RefusalReason } from '../domain/calls.ts';

export interface RedisGovernorOptions {
  /** Every key lives under `${prefix}:gov:`. */
  prefix: string;
  limits: GovernorLimits;
  now?: () => number;
  random?: () => number;
  logger?: Logger;
  /** A ticket neither settled nor released by then belongs to a dead process and is dropped. */
  ticketTtlMs?: number;
}

const SCRIPT_NAMES = ['admit', 'settle', 'release', 'seed', 'start-run', 'status'] as const;
type ScriptName = (typeof SCRIPT_NAMES)[number];

/** Each script is lib.lua (shared helpers) followed by its own file; read once at start-up. */
const LIB = readFileSync(new URL('./lua/lib.lua', import.meta.url), 'utf8');
const SCRIPTS: Readonly<Record<ScriptName, string>> = Object.freeze(
  Object.fromEntries(
    SCRIPT_NAMES.map((name) => [
      name,
      `${LIB}\n${readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8')}`,
    ]),
  ) as Record<ScriptName, string>,
);

const commandName = (name: ScriptName) => `fragsyncGov_${name.replace('-', '_')}`;
type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

const Strings = z.array(z.string());
const Admitted = z.tuple([z.literal('ok'), z.string()]);
const Refused = z.tuple(
  [
    z.literal('refused'),
    z.enum(['paused', 'busy', 'run_budget', 'day_budget', 'payment_required', 'unauthorized']),
  ],
  z.string(),
);

const numOrNull = (s: string | undefined): number | null => (s === undefined || s === '' ? null : Number(s));
const num = (s: string | undefined): number => numOrNull(s) ?? 0;
const optArg = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

/**
 * The governor shared by every worker process: state in Redis, every change one Lua script
 * (src/governor/lua/), so admits from many processes cannot overshoot together. The caller
 * owns the connection; close() leaves it open.
 */
export function createRedisGovernor(redis: Redis, opts: RedisGovernorOptions): Governor {
  const { limits, prefix } = opts;
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const ticketTtlMs = opts.ticketTtlMs ?? DEFAULT_TICKET_TTL_MS;
  const log = opts.logger;
  const budgetReached = budgetNotice(log);
  const keys = ['state', 'inflight', 'tickets', 'expired'].map((k) => `${prefix}:gov:${k}`);
  /**
   * This process's own clock offset (service Date minus local now), null until a response
   * told it. Not shared: processes on other hosts have other clocks (lua/lib.lua, OFF).
   */
  let offsetMs: number | null = null;

  for (const name of SCRIPT_NAMES) {
    redis.defineCommand(commandName(name), { lua: SCRIPTS[name], numberOfKeys: keys.length });
  }

  async function run(name: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    const fn = (redis as unknown as Record<string, ScriptCall | undefined>)[commandName(name)];
    if (!fn) throw new FragsyncError('INTERNAL', `governor script ${name} is not defined`);
    return fn.call(redis, ...keys, prefix, now(), optArg(offsetMs), ...args);
  }

  async function admit(endpoint: keyof typeof ENDPOINTS, recheckMs?: number): Promise<Admission> {
    const cost = ENDPOINTS[endpoint].costCents;
    const id = randomUUID();
    const raw = await run(
      'admit',
      cost,
      id,
      ticketTtlMs,
      limits.reserveCalls,
      limits.reservePercent,
      optArg(limits.maxCentsPerRun),
      optArg(limits.maxCentsPerDay),
      drawJitterMs(limits, random),
      optArg(recheckMs === undefined ? null : Math.max(0, recheckMs)),
    );
    const ok = Admitted.safeParse(raw);
    if (ok.success) return { ok: true, ticket: { id, endpoint, costCents: cost, runId: ok.data[1] } };
    const r = Refused.parse(raw);
    const reason: RefusalReason = r[1];
    const admission = refusal({
      reason,
      untilMs: numOrNull(r[2]),
      spentCents: num(r[3]),
      inFlightCents: num(r[4]),
      capCents: numOrNull(r[5]),
      inFlight: num(r[6]),
      remaining: numOrNull(r[7]),
      reserve: num(r[8]),
      costCents: cost,
    });
    if (r[9] === '1') log?.info({ pausedUntil: admission.ok ? null : admission.until }, 'quota pause');
    if (reason === 'run_budget' || reason === 'day_budget') {
      budgetReached(reason, num(r[3]), numOrNull(r[5]));
    }
    return admission;
  }

  return {
    admit: (endpoint) => admit(endpoint),
    recheck: (endpoint, intervalMs) => admit(endpoint, intervalMs),
    async settle(ticket, outcome) {
      const rl = outcome.rateLimit;
      const told = offsetFrom(rl.serverDate?.getTime() ?? null, rl.resetAt?.getTime() ?? null, now());
      if (told !== null) offsetMs = told;
      const raw = await run(
        'settle',
        ticket.id,
        ticket.costCents,
        outcome.status,
        optArg(rl.limit),
        optArg(rl.remaining),
        optArg(rl.resetAt?.getTime()),
        optArg(rl.serverDate?.getTime()),
        limits.reserveCalls,
        limits.reservePercent,
        drawJitterMs(limits, random),
        ticket.runId ?? '',
      );
      const [started, pauseEnd, remaining] = Strings.parse(raw);
      if (started === 'ended') {
        log?.info({ remaining: numOrNull(remaining) }, 'quota pause ended: a recheck found quota left');
      } else if (started === '1') {
        const pausedUntil = new Date(num(pauseEnd)).toISOString();
        log?.info({ pausedUntil, remaining: numOrNull(remaining), status: outcome.status }, 'quota pause');
      }
    },
    async release(ticket) {
      await run('release', ticket.id);
    },
    async seedSpend(centsToday, dayUtc, clockOffsetMs) {
      checkDay(dayUtc);
      // Until a response tells this process (or any, for the shared state) the offset.
      if (clockOffsetMs !== undefined) offsetMs ??= Math.round(clockOffsetMs);
      await run('seed', Math.max(0, Math.round(centsToday)), dayUtc);
    },
    async startRun(runId) {
      await run('start-run', runId);
    },
    status,
    async pausedUntil() {
      return (await status()).pausedUntil;
    },
    async close() {
      // The caller created the connection and quits it.
    },
  };

  async function status(): Promise<GovernorStatus> {
    const s = Strings.parse(await run('status'));
    const limit = numOrNull(s[0]);
    const resetAt = numOrNull(s[2]);
    const pauseEnd = numOrNull(s[5]);
    return {
      limit,
      remaining: numOrNull(s[1]),
      resetAt: resetAt === null ? null : new Date(resetAt),
      reserve: reserveFor(limit, limits),
      inFlight: num(s[3]),
      inFlightCents: num(s[4]),
      pausedUntil: pauseEnd === null ? null : new Date(pauseEnd),
      centsToday: num(s[6]),
      centsThisRun: num(s[7]),
      callsThisRun: num(s[8]),
      maxCentsPerRun: limits.maxCentsPerRun,
      maxCentsPerDay: limits.maxCentsPerDay,
      clockOffsetMs: num(s[9]),
    };
  }
}
