import type { Governor, GovernorLimits } from '../../src/governor/index.ts';
import type { CallOutcome, CallTicket } from '../../src/domain/calls.ts';
import type { EndpointName } from '../../src/domain/endpoints.ts';

/** A local clock the test moves by hand. */
export interface FakeClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function fakeClock(startMs: number): FakeClock {
  let t = startMs;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

export function testLimits(overrides: Partial<GovernorLimits> = {}): GovernorLimits {
  return {
    reserveCalls: 2,
    reservePercent: 10,
    maxCentsPerRun: null,
    maxCentsPerDay: null,
    resumeJitterMs: 1000,
    ...overrides,
  };
}

export interface OutcomeFields {
  limit?: number | null;
  remaining?: number | null;
  resetAtMs?: number | null;
  serverDateMs?: number | null;
}

export function outcome(status: number, f: OutcomeFields = {}): CallOutcome {
  const date = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms));
  return {
    status,
    rateLimit: {
      limit: f.limit ?? null,
      remaining: f.remaining ?? null,
      resetAt: date(f.resetAtMs),
      serverDate: date(f.serverDateMs),
    },
  };
}

export async function admitOk(gov: Governor, endpoint: EndpointName = 'search'): Promise<CallTicket> {
  const a = await gov.admit(endpoint);
  if (!a.ok) throw new Error(`expected admission, got ${a.reason}: ${a.message}`);
  return a.ticket;
}

/** Anything that answers a call as the service would: quota decremented, 429 once used up. */
export interface CallTarget {
  call(): CallOutcome | Promise<CallOutcome>;
}

export interface FakeService extends CallTarget {
  call(): CallOutcome;
  calls(): number;
  remaining(): number;
}

export function fakeService(limit: number, resetAtMs: number): FakeService {
  let remaining = limit;
  let calls = 0;
  return {
    call() {
      calls += 1;
      if (remaining === 0) return outcome(429, { limit, remaining: 0, resetAtMs });
      remaining -= 1;
      return outcome(200, { limit, remaining, resetAtMs });
    },
    calls: () => calls,
    remaining: () => remaining,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `workers` loops admit → call the fake service → settle, retrying 'busy' shortly, until the
 * governor refuses with anything else. Returns how many calls were admitted.
 */
export async function hammer(govs: Governor[], service: CallTarget, workersPerGov: number): Promise<number> {
  let admitted = 0;
  const worker = async (gov: Governor) => {
    for (;;) {
      const a = await gov.admit('getFragrance');
      if (!a.ok) {
        if (a.reason !== 'busy') return;
        await sleep(Math.random() * 2);
        continue;
      }
      admitted += 1;
      await sleep(Math.random() * 3);
      await gov.settle(a.ticket, await service.call());
    }
  };
  await Promise.all(govs.flatMap((gov) => Array.from({ length: workersPerGov }, () => worker(gov))));
  return admitted;
}
