import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Governor, GovernorLimits } from '../../src/governor/index.ts';
import { admitOk, fakeClock, fakeService, hammer, outcome, testLimits, type FakeClock } from './fixtures.ts';

export interface GovernorFactoryOptions {
  limits: GovernorLimits;
  now: () => number;
  random: () => number;
  ticketTtlMs?: number;
  logger?: Logger;
}

/** Builds a fresh governor with its own state (a new prefix for Redis). */
export type GovernorFactory = (opts: GovernorFactoryOptions) => Promise<Governor>;

const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);
/** The window's reset: the next midnight UTC of the service clock. */
const RESET = Date.UTC(2030, 0, 16);
const JITTER = 250; // random() = 0.25 of resumeJitterMs 1000

/** The semantics both implementations must share; called once per implementation. */
export function governorContract(name: string, make: GovernorFactory): void {
  describe(`${name} governor: shared semantics`, () => {
    async function setup(limits = testLimits(), ticketTtlMs?: number) {
      const clock: FakeClock = fakeClock(T0);
      const gov = await make({ limits, now: clock.now, random: () => 0.25, ticketTtlMs });
      return { gov, clock };
    }

    /** Spend one 1-cent probe so that remaining is known (limit 100: reserve 10). */
    async function learn(gov: Governor, remaining = 1000, limit = 100) {
      const t = await admitOk(gov);
      await gov.settle(t, outcome(200, { limit, remaining, resetAtMs: RESET }));
    }

    it('admits one probe while remaining is unknown, then as many as remaining minus reserve allows', async () => {
      const { gov } = await setup();
      const probe = await admitOk(gov);
      const second = await gov.admit('search');
      expect(second).toMatchObject({ ok: false, reason: 'busy', until: null });
      await gov.settle(probe, outcome(200, { limit: 100, remaining: 14, resetAtMs: RESET }));
      // reserve = max(2, 10% of 100) = 10: 14 - inFlight must stay above 10.
      for (let i = 0; i < 4; i++) await admitOk(gov);
      const fifth = await gov.admit('search');
      expect(fifth).toMatchObject({ ok: false, reason: 'busy' });
      const s = await gov.status();
      expect(s).toMatchObject({
        inFlight: 4,
        inFlightCents: 4,
        remaining: 14,
        reserve: 10,
        pausedUntil: null,
      });
    });

    it('keeps the lowest remaining of a window; a later reset starts a new one; older resets are ignored', async () => {
      const { gov } = await setup();
      await learn(gov, 50);
      await gov.settle(await admitOk(gov), outcome(200, { remaining: 60, resetAtMs: RESET }));
      expect((await gov.status()).remaining).toBe(50);
      const next = RESET + 86_400_000;
      await gov.settle(await admitOk(gov), outcome(200, { limit: 200, remaining: 90, resetAtMs: next }));
      expect(await gov.status()).toMatchObject({ remaining: 90, limit: 200, resetAt: new Date(next) });
      await gov.settle(await admitOk(gov), outcome(200, { remaining: 5, resetAtMs: RESET }));
      expect((await gov.status()).remaining).toBe(90);
    });

    it('pauses everyone at the reserve until reset + jitter, then resumes with a probe', async () => {
      const { gov, clock } = await setup();
      await learn(gov, 12);
      const a = await admitOk(gov);
      expect(await gov.pausedUntil()).toBeNull();
      await gov.settle(a, outcome(200, { remaining: 10, resetAtMs: RESET }));
      const until = new Date(RESET + JITTER);
      expect(await gov.pausedUntil()).toEqual(until);
      const refused = await gov.admit('search');
      expect(refused).toMatchObject({ ok: false, reason: 'paused', until });
      clock.set(RESET + JITTER - 1);
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
      clock.set(RESET + JITTER);
      await admitOk(gov);
      expect(await gov.status()).toMatchObject({ remaining: null, pausedUntil: null, inFlight: 1 });
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'busy' });
    });

    it('rechecks during a pause: one at a time, one per interval; a raised quota ends the pause', async () => {
      const { gov, clock } = await setup();
      expect(await gov.recheck('listAccords', 5_000)).toMatchObject({ ok: false, reason: 'busy' });
      await gov.settle(await admitOk(gov), outcome(429, { limit: 100, resetAtMs: RESET }));
      const first = await gov.recheck('listAccords', 5_000);
      if (!first.ok) throw new Error(first.message);
      // One in flight: neither a second recheck nor an ordinary call.
      expect(await gov.recheck('listAccords', 5_000)).toMatchObject({ ok: false, reason: 'paused' });
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
      await gov.settle(first.ticket, outcome(429, { limit: 100, remaining: 0, resetAtMs: RESET }));
      expect(await gov.status()).toMatchObject({ remaining: 0, pausedUntil: new Date(RESET + JITTER) });
      clock.advance(4_999);
      const early = await gov.recheck('listAccords', 5_000);
      expect(early).toMatchObject({ ok: false, reason: 'paused', until: new Date(T0 + 5_000) });
      clock.advance(1);
      const second = await gov.recheck('listAccords', 5_000);
      if (!second.ok) throw new Error(second.message);
      // The quota was raised to 1000 with 400 used: remaining goes UP within the same window.
      await gov.settle(second.ticket, outcome(200, { limit: 1000, remaining: 600, resetAtMs: RESET }));
      expect(await gov.status()).toMatchObject({ remaining: 600, limit: 1000, pausedUntil: null });
      await admitOk(gov);
      expect(await gov.recheck('listAccords', 5_000)).toMatchObject({ ok: false, reason: 'busy' });
      expect((await gov.status()).centsThisRun).toBe(3);
    });

    it('a recheck that finds no more than the reserve keeps the pause', async () => {
      const { gov } = await setup();
      await learn(gov, 10); // limit 100: reserve 10, so this pauses
      const r = await gov.recheck('listAccords', 1_000);
      if (!r.ok) throw new Error(r.message);
      await gov.settle(r.ticket, outcome(200, { limit: 100, remaining: 10, resetAtMs: RESET }));
      expect(await gov.status()).toMatchObject({ remaining: 10, pausedUntil: new Date(RESET + JITTER) });
      // An ordinary answer is still read as before: the lowest of the window.
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
    });

    it('a 429 pauses until the reset it names and sets remaining to 0', async () => {
      const { gov, clock } = await setup();
      const probe = await admitOk(gov);
      await gov.settle(probe, outcome(429, { limit: 100, resetAtMs: RESET }));
      expect(await gov.status()).toMatchObject({ remaining: 0, pausedUntil: new Date(RESET + JITTER) });
      expect(await gov.admit('batch')).toMatchObject({ ok: false, reason: 'paused' });
      clock.set(RESET + JITTER + 1);
      await admitOk(gov);
    });

    it('a 429 without any reset time pauses 60 s, then probes', async () => {
      const { gov, clock } = await setup();
      await gov.settle(await admitOk(gov), outcome(429));
      expect(await gov.pausedUntil()).toEqual(new Date(T0 + 60_000 + JITTER));
      clock.advance(60_000 + JITTER - 1);
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
      clock.advance(1);
      await admitOk(gov);
      expect((await gov.status()).remaining).toBeNull();
    });

    for (const skewMs of [10 * 60_000, -10 * 60_000]) {
      it(`ends the pause at the right local time when the service clock is ${skewMs / 60_000} min off`, async () => {
        const { gov, clock } = await setup();
        const serverDateMs = T0 + skewMs;
        await gov.settle(
          await admitOk(gov),
          outcome(200, { limit: 100, remaining: 10, resetAtMs: RESET, serverDateMs }),
        );
        const localEnd = RESET - skewMs + JITTER;
        expect(await gov.status()).toMatchObject({ clockOffsetMs: skewMs, pausedUntil: new Date(localEnd) });
        clock.set(localEnd - 1);
        expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'paused' });
        clock.set(localEnd);
        await admitOk(gov);
      });
    }

    it('ignores a Date from another clock: one whose reset is not within a day after it', async () => {
      const { gov, clock } = await setup();
      // A compressed-day simulator: Date shows its service time (months back), resets are real.
      const serverDateMs = Date.UTC(2029, 0, 1, 0, 0, 1);
      const reset = T0 + 3_000;
      await gov.settle(
        await admitOk(gov),
        outcome(200, { limit: 100, remaining: 5, resetAtMs: reset, serverDateMs }),
      );
      expect(await gov.status()).toMatchObject({ clockOffsetMs: 0, pausedUntil: new Date(reset + JITTER) });
      clock.set(reset + JITTER);
      await admitOk(gov);
    });

    it("counts today's cents on the service clock's UTC day", async () => {
      const { gov, clock } = await setup();
      clock.set(Date.UTC(2030, 0, 15, 23, 55));
      // The service is 10 min ahead: for it, it is already 2030-01-16.
      const serverDateMs = Date.UTC(2030, 0, 16, 0, 5);
      await gov.settle(await admitOk(gov), outcome(200, { serverDateMs, resetAtMs: Date.UTC(2030, 0, 17) }));
      await gov.seedSpend(40, '2030-01-16');
      await gov.seedSpend(70, '2030-01-15');
      expect((await gov.status()).centsToday).toBe(40);
    });

    it('a seeded clock offset stands for the service clock until a response tells one', async () => {
      const { gov, clock } = await setup(testLimits({ maxCentsPerDay: 100 }));
      // The last run saw the service a day ahead: its day is the 16th, on which 99 cents went.
      await gov.seedSpend(99, '2030-01-16', 86_400_000);
      expect(await gov.status()).toMatchObject({ clockOffsetMs: 86_400_000, centsToday: 99 });
      expect(await gov.admit('getSimilar')).toMatchObject({ ok: false, reason: 'day_budget' });
      // A response shows the service at this machine's time after all: its day is the 15th.
      const resetAtMs = Date.UTC(2030, 0, 16);
      await gov.settle(await admitOk(gov), outcome(200, { serverDateMs: clock.now(), resetAtMs }));
      expect(await gov.status()).toMatchObject({ clockOffsetMs: 0, centsToday: 1 });
      // A seed never overrides an offset a response told.
      await gov.seedSpend(0, '2030-01-15', 86_400_000);
      expect((await gov.status()).clockOffsetMs).toBe(0);
    });

    // A wrong base URL's server (or a proxy's error page) sends a Date but none of the
    // X-RateLimit headers the service sends on every response: its clock is not the
    // service's, and taken as such it moved the service's day until the next good run.
    it("takes no clock offset from an answer without the service's reset header", async () => {
      const { gov, clock } = await setup();
      await gov.seedSpend(0, '2030-01-16', 86_400_000);
      await gov.settle(await admitOk(gov), outcome(404, { serverDateMs: clock.now() }));
      expect((await gov.status()).clockOffsetMs).toBe(86_400_000);
    });

    it('names the UTC day correctly across month, leap-day and year boundaries', async () => {
      const { gov, clock } = await setup();
      for (const day of ['2028-02-29', '2030-12-31', '2031-01-01', '2100-03-01', '2030-03-01']) {
        clock.set(Date.parse(`${day}T23:59:59.999Z`));
        await gov.seedSpend(7, day);
        expect((await gov.status()).centsToday).toBe(7);
        clock.advance(1);
        expect((await gov.status()).centsToday).toBe(0);
      }
    });

    it('refuses over the run budget, counting cents in flight; a new run starts at 0', async () => {
      const { gov } = await setup(testLimits({ maxCentsPerRun: 10 }));
      await gov.startRun('run-1');
      await learn(gov); // 1 cent
      const digest = await admitOk(gov, 'getReviewDigest'); // 5 cents in flight
      const refused = await gov.admit('getReviewDigest');
      expect(refused).toMatchObject({ ok: false, reason: 'run_budget' });
      expect(refused.ok ? '' : refused.message).toMatch(/1 cents spent.*5 in flight.*cap of 10 cents/);
      const similar = await admitOk(gov, 'getSimilar'); // 2 cents: 1 + 7 in flight
      await admitOk(gov); // 9
      const last = await admitOk(gov); // 10
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'run_budget' });
      await gov.release(digest);
      const afterRelease = await admitOk(gov);
      await gov.settle(similar, outcome(500));
      await gov.settle(last, outcome(0));
      await gov.settle(afterRelease, outcome(200));
      expect(await gov.status()).toMatchObject({ centsThisRun: 5, callsThisRun: 4, inFlight: 1 });
      await gov.startRun('run-2');
      expect(await gov.status()).toMatchObject({ centsThisRun: 0, callsThisRun: 0, centsToday: 5 });
      await gov.settle(await admitOk(gov, 'getSimilar'), outcome(200));
      await gov.startRun('run-2'); // a worker joining the same run keeps its counters
      expect(await gov.status()).toMatchObject({ centsThisRun: 2, callsThisRun: 1 });
    });

    it('refuses over the day budget until the next service midnight; seedSpend only ever raises', async () => {
      const { gov, clock } = await setup(testLimits({ maxCentsPerDay: 100 }));
      await gov.seedSpend(90, '2030-01-15');
      await gov.seedSpend(50, '2030-01-15');
      await gov.seedSpend(500, '2030-01-14');
      expect((await gov.status()).centsToday).toBe(90);
      await learn(gov); // 91
      await admitOk(gov, 'getReviewDigest'); // 96 with in-flight cents
      const refused = await gov.admit('getReviewDigest');
      expect(refused).toMatchObject({ ok: false, reason: 'day_budget', until: new Date(RESET) });
      expect(refused.ok ? '' : refused.message).toMatch(/91 cents spent today.*cap of 100 cents/);
      await admitOk(gov, 'getSimilar'); // 98
      clock.set(RESET + 5_000);
      const t = await admitOk(gov, 'getReviewDigest');
      expect(t.costCents).toBe(5);
      expect((await gov.status()).centsToday).toBe(7);
    });

    it('counts every settled attempt, failed or not, and nothing for a released ticket', async () => {
      const { gov } = await setup();
      await gov.startRun('r');
      await learn(gov);
      await gov.settle(await admitOk(gov, 'batch'), outcome(500));
      await gov.settle(await admitOk(gov, 'enrich'), outcome(0));
      await gov.release(await admitOk(gov, 'compare'));
      expect(await gov.status()).toMatchObject({ centsThisRun: 36, callsThisRun: 3, inFlight: 0 });
    });

    it('drops a ticket never settled after its TTL, charging it once', async () => {
      const { gov, clock } = await setup(testLimits(), 5_000);
      await gov.startRun('r');
      const lost = await admitOk(gov, 'getSimilar');
      clock.advance(4_999);
      expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'busy' });
      clock.advance(1);
      const next = await admitOk(gov);
      expect(await gov.status()).toMatchObject({ inFlight: 1, centsThisRun: 2, callsThisRun: 1 });
      await gov.settle(lost, outcome(200)); // a late answer: already charged at expiry
      await gov.settle(next, outcome(200));
      expect(await gov.status()).toMatchObject({ inFlight: 0, centsThisRun: 3, callsThisRun: 2 });
    });

    it('never exceeds the run budget under concurrent admits, and logs the cap once', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
      const limits = testLimits({ maxCentsPerRun: 50 });
      const gov = await make({ limits, now: fakeClock(T0).now, random: () => 0.25, logger });
      await gov.startRun('r');
      await learn(gov);
      const results = await Promise.all(Array.from({ length: 80 }, () => gov.admit('search')));
      expect(results.filter((a) => a.ok)).toHaveLength(49);
      expect(results.filter((a) => !a.ok && a.reason === 'run_budget')).toHaveLength(31);
      // 31 refusals with the same facts: one line, not one per refused job.
      expect(lines.filter((l) => l.includes('run budget reached'))).toHaveLength(1);
    });

    it('concurrent workers use exactly limit − reserve of the quota and then pause', async () => {
      const limits = testLimits({ reserveCalls: 3, reservePercent: 5 });
      const clock = fakeClock(T0);
      const gov = await make({ limits, now: clock.now, random: () => 0 });
      const service = fakeService(120, RESET);
      const admitted = await hammer([gov], service, 8);
      expect(admitted).toBe(120 - 6);
      expect(service.remaining()).toBe(6);
      expect(await gov.pausedUntil()).toEqual(new Date(RESET));
    });
  });
}
