/**
 * A resource that is opened on first use and closed when released, with every use kept
 * apart from a close: a release waits for the uses under way, a use that arrives during a
 * close waits for it and opens again. The sync's warehouse lives in one of these, so DuckDB's
 * file is held only while it is written (DuckDB admits no reader while a writer has it open).
 */
export class ReopenGate<T> {
  private value: T | null;
  private active = 0;
  private transition: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    initial: T,
    private readonly hooks: {
      open: () => Promise<T>;
      /** `final`: closed for good (close()), not released to be opened again. */
      close: (value: T, final: boolean) => Promise<void>;
      /** Release by itself once unused for this long, in ms; null: only when told. */
      idleReleaseMs: number | null;
      /** A release by itself failed (the value is closed all the same). */
      onIdleReleaseError?: (err: unknown) => void;
    },
  ) {
    this.value = initial;
  }

  /** Whether the resource is open now. */
  get isOpen(): boolean {
    return this.value !== null;
  }

  async use<R>(fn: (value: T) => Promise<R>): Promise<R> {
    for (;;) {
      if (this.closed) throw new Error('used after close');
      if (this.transition) {
        await this.transition.catch(() => undefined);
        continue;
      }
      if (this.value === null) {
        await this.change(async () => {
          this.value = await this.hooks.open();
        });
        continue;
      }
      break;
    }
    const value = this.value;
    this.active++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    try {
      return await fn(value);
    } finally {
      this.active--;
      if (this.active === 0) this.idle();
    }
  }

  /** Closes the resource once the uses under way end; the next use opens it again. */
  release(): Promise<void> {
    return this.releaseValue(false);
  }

  private async releaseValue(final: boolean): Promise<void> {
    for (;;) {
      if (this.transition) {
        await this.transition.catch(() => undefined);
        continue;
      }
      if (this.value === null) return;
      if (this.active > 0) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        continue;
      }
      break;
    }
    const value = this.value;
    await this.change(async () => {
      // Unset first: a close that fails still leaves nothing open to use.
      this.value = null;
      await this.hooks.close(value, final);
    });
  }

  /** Releases for good: every later use throws. */
  async close(): Promise<void> {
    try {
      await this.releaseValue(true);
    } finally {
      this.closed = true;
      if (this.idleTimer) clearTimeout(this.idleTimer);
    }
  }

  private async change(fn: () => Promise<void>): Promise<void> {
    const t = fn();
    this.transition = t;
    try {
      await t;
    } finally {
      this.transition = null;
    }
  }

  private idle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
    const ms = this.hooks.idleReleaseMs;
    if (ms === null || this.closed || this.value === null) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.active === 0) this.release().catch((err: unknown) => this.hooks.onIdleReleaseError?.(err));
    }, ms);
    this.idleTimer.unref();
  }
}
