import type { EndpointName } from '../domain/endpoints.ts';
import type { CallTicket } from '../domain/calls.ts';
import { DAY_MS } from '../util/calendar-day.ts';
import { utcDay } from './policy.ts';

type Halt = 'payment_required' | 'unauthorized';
interface RunBooks {
  cents: number;
  calls: number;
  halted: Halt | null;
}

/**
 * The in-process governor's books (src/governor/memory.ts): tickets in flight, what each UTC
 * day (service clock) and each run spent. Kept apart from the admission rules, which read them.
 */
export class MemoryLedger {
  /** In insertion order, which is expiry order: every ticket lives ticketTtlMs. */
  private readonly tickets = new Map<string, { cents: number; expiresAtMs: number; runId: string }>();
  /** Cents of the tickets in flight. */
  inFlightCents = 0;
  private seq = 0;
  /** Tickets charged at expiry, so a late settle does not charge them twice. */
  private readonly expired = new Map<string, number>();
  readonly days = new Map<string, number>();
  private runId = '';
  /** Each run's spend, and why it admits nothing more (a 402 or a 401 was settled) if so. */
  private readonly runs = new Map<string, RunBooks>();

  constructor(private readonly ticketTtlMs: number) {}

  get inFlight(): number {
    return this.tickets.size;
  }

  has(id: string): boolean {
    return this.tickets.has(id);
  }

  /** The current run's books, or those of `id` (a ticket's run, lua/lib.lua run_key). */
  run(id = this.runId): RunBooks {
    let r = this.runs.get(id);
    if (!r) this.runs.set(id, (r = { cents: 0, calls: 0, halted: null }));
    return r;
  }

  /**
   * Why the current run admits nothing more, or null. A stop is the run's own: the next run
   * (after a top-up) is admitted again.
   */
  get halted(): Halt | null {
    return this.run().halted;
  }

  startRun(id: string): void {
    if (id === this.runId) return;
    this.runId = id;
    this.runs.set(id, { cents: 0, calls: 0, halted: null });
  }

  charge(cents: number, serviceNowMs: number, runId = this.runId): void {
    const day = utcDay(serviceNowMs);
    this.days.set(day, (this.days.get(day) ?? 0) + cents);
    const r = this.run(runId);
    r.cents += cents;
    r.calls += 1;
  }

  drop(id: string): boolean {
    const t = this.tickets.get(id);
    if (!t) return false;
    this.tickets.delete(id);
    this.inFlightCents -= t.cents;
    return true;
  }

  issue(endpoint: EndpointName, cost: number, nowMs: number): CallTicket {
    // Ids only need to be unique within this governor, which lives in one process.
    const ticket: CallTicket = { id: `t${++this.seq}`, endpoint, costCents: cost, runId: this.runId };
    this.tickets.set(ticket.id, { cents: cost, expiresAtMs: nowMs + this.ticketTtlMs, runId: this.runId });
    this.inFlightCents += cost;
    return ticket;
  }

  /** Tickets past their time are charged to their runs (`offsetMs`: service clock minus local). */
  expire(nowMs: number, offsetMs: number): void {
    // Both maps are in expiry order: stop at the first entry still alive (O(1) per call).
    for (const [id, t] of this.tickets) {
      if (t.expiresAtMs > nowMs) break;
      // The dead process may have sent the request: count it as spent, never exceed a cap. Its
      // run's, as a late settle would, not a run started since (lua/lib.lua housekeeping).
      this.drop(id);
      this.charge(t.cents, nowMs + offsetMs, t.runId);
      this.expired.set(id, nowMs);
    }
    for (const [id, at] of this.expired) {
      if (at >= nowMs - DAY_MS) break;
      this.expired.delete(id);
    }
  }

  /** A ticket settled: true when it is still to be charged (not charged at its expiry). */
  settled(id: string): boolean {
    const wasInFlight = this.drop(id);
    return wasInFlight || !this.expired.delete(id);
  }
}
