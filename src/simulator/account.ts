/**
 * The service clock, the account (one quota pool and one balance shared by all its keys)
 * and the call ledger.
 *
 * Clock: real time by default. With `daySeconds`, service time runs 86400/daySeconds times
 * faster from a fixed start (2026-01-01T00:00:01Z), so quota resets can be tested in seconds;
 * instants the client must act on (X-RateLimit-Reset, the 429 message) are then REAL times,
 * while the Date header shows service time. `advance` moves the service clock forward by
 * whole days, as days passing would: at real speed the service is then simply a clock ahead
 * of this machine's, so its reset instants are told on its own clock like its Date header
 * (a client converts them with the offset the Date header shows).
 */
import { DAY_MS } from '../util/calendar-day.ts';
import { epochDay } from './prng.ts';
import type { Ledger, LedgerEntry } from './types.ts';

export const COMPRESSED_START_MS = Date.UTC(2026, 0, 1, 0, 0, 1);

export class ServiceClock {
  private readonly speed: number;
  private baseService: number;
  private baseReal: number;

  constructor(daySeconds: number | undefined, realNow = Date.now()) {
    this.speed = daySeconds ? DAY_MS / (daySeconds * 1000) : 1;
    this.baseReal = realNow;
    this.baseService = daySeconds ? COMPRESSED_START_MS : realNow;
  }

  nowMs(realNow = Date.now()): number {
    return this.baseService + (realNow - this.baseReal) * this.speed;
  }

  nextMidnightMs(): number {
    return (epochDay(this.nowMs()) + 1) * DAY_MS;
  }

  /** The real instant at which the service clock shows `serviceMs`. */
  toRealMs(serviceMs: number): number {
    return this.baseReal + (serviceMs - this.baseService) / this.speed;
  }

  /**
   * Epoch seconds of the next service midnight (rounded up to whole seconds): on the service's
   * clock at real speed, the real instant with a compressed clock.
   */
  resetEpochSeconds(): number {
    const next = this.nextMidnightMs();
    return Math.ceil((this.speed === 1 ? next : this.toRealMs(next)) / 1000);
  }

  /** `days` service days pass at once: the clock shows the same time of day, that many days on. */
  advance(days: number): void {
    this.baseService += days * DAY_MS;
  }
}

export class Account {
  remaining: number;
  balanceCents: number;
  private windowDay: number;

  constructor(
    public limit: number,
    balanceCents: number,
    readonly keys: ReadonlySet<string>,
    private readonly clock: ServiceClock,
  ) {
    this.remaining = limit;
    this.balanceCents = balanceCents;
    this.windowDay = epochDay(clock.nowMs());
  }

  /** Resets the quota when the service clock has passed midnight since the last call. */
  rollover(): void {
    const day = epochDay(this.clock.nowMs());
    if (day !== this.windowDay) {
      this.windowDay = day;
      this.remaining = this.limit;
    }
  }

  /**
   * The account's owner changes its daily allowance: the calls already used today stay used,
   * so remaining moves by the difference (a raise takes effect at once, not at the reset).
   */
  setLimit(limit: number): void {
    this.rollover();
    this.remaining = Math.max(0, this.remaining + limit - this.limit);
    this.limit = limit;
  }

  bill(cents: number): void {
    this.remaining = Math.max(0, this.remaining - 1);
    this.balanceCents -= cents;
  }
}

export class CallLedger {
  private state: Ledger = { calls: 0, cents: 0, byEndpoint: {} };

  private entry(template: string): LedgerEntry {
    let e = this.state.byEndpoint[template];
    if (!e) {
      e = { calls: 0, cents: 0, byStatus: {} };
      this.state.byEndpoint[template] = e;
    }
    return e;
  }

  /** One request received and how it ended; status 0 stands for a connection reset. */
  record(template: string, status: number, cents: number): void {
    const e = this.entry(template);
    this.state.calls++;
    this.state.cents += cents;
    e.calls++;
    e.cents += cents;
    e.byStatus[status] = (e.byStatus[status] ?? 0) + 1;
  }

  snapshot(): Ledger {
    return structuredClone(this.state);
  }
}
