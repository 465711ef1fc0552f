import { Occupancy } from './occupancy.ts';

/**
 * Requests in flight, counted where they are sent: `http.concurrency` permits for every job
 * of a process together, taken in arrival order. A job holds one only while its request is
 * on the wire, so there can be more jobs than permits: the job that is between two requests
 * (journaling its result, taking the next job, waiting for the governor's ticket) leaves its
 * connection to a job that has a request ready.
 */
export class RequestSlots {
  private free: number;
  /** How well the permits were used: performCall tells it what it sends and what it admits. */
  readonly meter: Occupancy;
  private readonly waiting: { grant: () => void; signal?: AbortSignal; onAbort?: () => void }[] = [];
  private head = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`RequestSlots: size must be a positive integer`);
    this.free = size;
    this.meter = new Occupancy(size);
  }

  /** Requests holding a permit now. */
  get inUse(): number {
    return this.size - this.free;
  }

  /** Whether a permit can be taken now without waiting (tryAcquire would succeed). */
  canTake(): boolean {
    return this.free > 0 && this.head === this.waiting.length;
  }

  /** The release of one permit taken at once, or null when one would have to wait (acquire). */
  tryAcquire(): (() => void) | null {
    if (!this.canTake()) return null;
    this.free--;
    return this.releaser();
  }

  /** Resolves with the release of one permit (call it once); rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = { grant: () => resolve(this.releaser()), signal };
      if (signal) {
        // An aborted waiter is skipped when its turn comes (release() sees signal.aborted).
        entry.onAbort = () => reject(abortReason(signal));
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.waiting.push(entry);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.release();
    };
  }

  private release(): void {
    while (this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined as never;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      if (next.signal?.aborted) continue;
      if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
      next.grant();
      return;
    }
    this.free++;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
