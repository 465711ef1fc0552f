/**
 * Why a request slot (one of `http.concurrency`) carried no request, as the run's owner
 * explains it (FetchStage): a figure of latency hiding that does not depend on how fast this
 * machine is, unlike calls/s.
 * - governor: requests wait for their ticket (a Redis round trip, or 'busy' retries near
 *   the reserve) while slots are free;
 * - paused: a quota pause;
 * - jobsBusy: jobs are queued, but every job slot (queue.concurrency) holds a job with no
 *   request ready (parsing, journaling, its outcome being handled);
 * - pickup: jobs are queued and job slots are free, but the driver has not started them yet
 *   (BullMQ: fetching them from Redis);
 * - gate: nothing queued, the nightly's gate holds the next stage;
 * - noneReady: nothing queued, and the running jobs have no further request ready (a walk
 *   waiting for its page 1, the answers a job needs before its next request, the run's tail);
 * - noWork: nothing queued or running (the frontier working out what a job made owed, the
 *   start and the end of the fetch).
 */
export const IDLE_REASONS = [
  'governor',
  'paused',
  'jobsBusy',
  'pickup',
  'gate',
  'noneReady',
  'noWork',
] as const;
export type IdleReason = (typeof IDLE_REASONS)[number];

export interface OccupancyFigures {
  /** Requests in flight allowed (http.concurrency). */
  concurrency: number;
  /** Time measured, in ms (the fetch stage). */
  wallMs: number;
  /** Requests on the wire, time-weighted mean over wallMs. */
  meanInFlight: number;
  /** meanInFlight / concurrency: 1 when every slot carried a request all the time. */
  occupancy: number;
  /** Share of wallMs with fewer than `concurrency` requests on the wire. */
  underShare: number;
  /** Share of all slot-time idle for each reason: they sum to 1 - occupancy. */
  idle: Record<IdleReason, number>;
}

/**
 * Integrates, at every change, requests on the wire over time (performance.now, no timer):
 * the slot-time not carrying a request is charged to the governor while requests wait for
 * their ticket, and the rest to `why()`.
 */
export class Occupancy {
  private onWire = 0;
  private asking = 0;
  private since = 0;
  private t0 = 0;
  private wire = 0;
  private under = 0;
  private idle = new Map<IdleReason, number>();
  private why: (() => IdleReason) | null = null;

  constructor(
    readonly size: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Start measuring (again), free slots explained by `why`. */
  start(why: () => IdleReason): void {
    this.why = why;
    this.t0 = this.since = this.now();
    this.wire = this.under = 0;
    this.idle = new Map();
  }

  /** The figures since start(); measuring stops. Null when it never started. */
  stop(): OccupancyFigures | null {
    if (!this.why) return null;
    this.advance();
    this.why = null;
    const wallMs = this.since - this.t0;
    const slotMs = wallMs * this.size;
    const share = (ms: number) => (slotMs > 0 ? ms / slotMs : 0);
    const meanInFlight = wallMs > 0 ? this.wire / wallMs : 0;
    return {
      concurrency: this.size,
      wallMs,
      meanInFlight,
      occupancy: meanInFlight / this.size,
      underShare: wallMs > 0 ? this.under / wallMs : 0,
      idle: Object.fromEntries(IDLE_REASONS.map((r) => [r, share(this.idle.get(r) ?? 0)])) as Record<
        IdleReason,
        number
      >,
    };
  }

  /** A request began (+1) or ended (-1) asking the governor for its ticket. */
  admitting(delta: 1 | -1): void {
    this.advance();
    this.asking += delta;
  }

  /** A request went onto the wire (+1) or its answer was read (-1). */
  wireChange(delta: 1 | -1): void {
    this.advance();
    this.onWire += delta;
  }

  private advance(): void {
    const why = this.why;
    if (!why) return;
    const now = this.now();
    const dt = now - this.since;
    if (dt <= 0) return;
    this.since = now;
    this.wire += this.onWire * dt;
    if (this.onWire < this.size) this.under += dt;
    const free = this.size - this.onWire;
    if (free <= 0) return;
    const governor = Math.min(free, this.asking);
    if (governor > 0) this.add('governor', governor * dt);
    if (free > governor) this.add(why(), (free - governor) * dt);
  }

  private add(reason: IdleReason, ms: number): void {
    this.idle.set(reason, (this.idle.get(reason) ?? 0) + ms);
  }
}
