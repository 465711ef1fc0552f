import type { Logger } from 'pino';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import { Journal, journalMark } from '../warehouse/journal.ts';
import type { LoadEntry, LoadItem, ProgressMark } from '../domain/items.ts';
import type { SentCall } from '../domain/calls.ts';

export interface LoadStageOptions {
  /** Items per warehouse transaction (count). */
  batchItems: number;
  /** Longest wait of a partial batch, in ms. */
  flushMs: number;
  log: Logger;
  /**
   * Called once, synchronously, when the journal first cannot be written: what is fetched from
   * then on cannot be kept, so the caller stops paying for it at once (a job fetching many
   * pages reports nothing until its last). It must not cancel a request already on its way:
   * it may run inside undici's send path (a request's line), before that request's bytes go.
   */
  onJournalFailure?: (err: unknown) => void;
}

/**
 * The single writer: journals job results, and has the warehouse load them in batched
 * transactions, one at a time, off the path that keeps requests in flight. The journal is
 * the buffer: a batch is a sealed journal segment, which the loader reads itself. What a dead
 * process left in it is replayed before a run starts (replayJournal, open-run.ts).
 */
export class LoadStage {
  private readonly journal: Journal;
  /** Items and marks journaled since the last seal (the next batch's size). */
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private draining = false;
  private idleWaiters: (() => void)[] = [];
  private writeError: unknown = null;
  /** Requests sent and journaled whose answer (their ApiCallItem) is not journaled yet. */
  private readonly inFlight = new Map<string, SentCall>();
  /** Lines added in this event-loop turn, written together at its end (see `durable`). */
  private pending: string[] = [];
  /** Call ids answered in the pending lines: settled once those are written. */
  private pendingCalls: string[] = [];
  private pendingWaiters: { resolve(): void; reject(err: unknown): void }[] = [];
  private pendingScheduled = false;
  /** The first journal write that failed (no room): the run stops on it. */
  private journalError: unknown = null;
  readonly loaded: Record<string, number> = {};
  /** A request line up to its calls: one per request, and a run id that never changes. */
  private readonly sentHead: string;

  constructor(
    private readonly warehouse: WarehouseHandle,
    dbPath: string,
    private readonly runId: string,
    private readonly opts: LoadStageOptions,
  ) {
    this.journal = new Journal(dbPath);
    const empty: LoadEntry = { runId, items: [], progress: [], sent: [] };
    this.sentHead = JSON.stringify(empty).slice(0, -2);
  }

  /** The first failed warehouse or journal write, if any: nothing more is written in this run. */
  get failure(): unknown {
    return this.writeError ?? this.journalError;
  }

  /**
   * Take one job's rows: journaled at the end of this event-loop turn together with the
   * other results of the turn (one write(2) for all: a sync has about six per turn), and
   * written to the warehouse with the next batch. A job's slot waits for `durable()` before it
   * sends again, so a kill still loses only the results of jobs in flight. After a failed
   * warehouse write they are only journaled (the next start replays the journal).
   */
  add(items: LoadItem[], progress: ProgressMark[], runId = this.runId): void {
    if (items.length === 0 && progress.length === 0) return;
    this.pending.push(JSON.stringify({ runId, items, progress } satisfies LoadEntry));
    for (const item of items)
      if (item.kind === 'apiCall' && item.callId !== undefined) this.pendingCalls.push(item.callId);
    if (!this.pendingScheduled) {
      this.pendingScheduled = true;
      setImmediate(() => this.writePending());
    }
    if (this.writeError) return;
    this.size += items.length + progress.length;
    if (this.writing) return; // the running write takes what accumulates when it ends
    if (this.size >= this.opts.batchItems) this.startWrite();
    else if (!this.timer) this.timer = setTimeout(() => this.startWrite(), this.opts.flushMs);
  }

  /** Resolves once everything added so far is in the journal; rejects if it could not be written. */
  durable(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.pendingWaiters.push({ resolve, reject }));
  }

  /**
   * Write the pending lines. Only a request whose answer is journaled is settled: one whose
   * answer could not be written (no room) stays in flight, the next seal (the flush at close)
   * journals it as sent again, and the next start ledgers it, as the service billed it. A
   * failure reaches the waiting jobs and `failure`; it never throws into the event loop.
   */
  private writePending(): void {
    this.pendingScheduled = false;
    if (this.pending.length === 0) return;
    const { pending, pendingCalls, pendingWaiters } = this;
    this.pending = [];
    this.pendingCalls = [];
    this.pendingWaiters = [];
    try {
      this.journal.append(pending);
    } catch (err) {
      this.journalFailure(err);
      for (const w of pendingWaiters) w.reject(err);
      return;
    }
    if (this.inFlight.size > 0) for (const id of pendingCalls) this.inFlight.delete(id);
    for (const w of pendingWaiters) w.resolve();
  }

  /**
   * A request just went onto the wire (called synchronously before its bytes are written):
   * journaled now, so that a kill before its answer still leaves a trace of it to ledger.
   */
  sent(call: SentCall): void {
    this.inFlight.set(call.callId, call);
    this.journalSent([call]);
  }

  /**
   * Never throws: it runs in undici's send path and in timers. A line that cannot be written
   * (no room) stops the run through `failure` like a result that cannot; the request goes out
   * all the same (its bytes follow), stays in flight here and is journaled again at the next
   * seal, when there may be room.
   */
  private journalSent(sent: SentCall[]): void {
    try {
      // `{"runId":…,"items":[],"progress":[],"sent":[…]}`, the run's part made once (sentHead).
      this.journal.append(`${this.sentHead}${sent.map((c) => JSON.stringify(c)).join(',')}]}`);
    } catch (err) {
      this.journalFailure(err);
    }
  }

  private journalFailure(err: unknown): void {
    if (this.journalError !== null) return;
    this.journalError = err;
    // At once, not at the end of the turn: until the caller halts its jobs, a slot freed by an
    // answer goes to a waiting request, which would leave with no line of its own (the
    // clean-clone CI run saw 5 such requests at a concurrency of 4). Told now, no request
    // leaves after this failure but those already holding a slot. The halt (Halt) lets a
    // request that is leaving go: the one whose line failed here is answered and ledgered.
    try {
      this.opts.onJournalFailure?.(err);
    } catch (thrown) {
      this.opts.log.warn({ err: thrown }, 'stopping the jobs failed');
    }
  }

  /**
   * One transaction at a time. While it runs, results accumulate, and the next transaction
   * takes all of them: when DuckDB is the slower side, batches grow by themselves and its
   * fixed cost per transaction is paid less often (the journal keeps them safe meanwhile).
   */
  private startWrite(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // The segment about to be sealed must hold every result added so far.
    this.writePending();
    if (this.writing || this.size === 0 || this.writeError) {
      this.settleIdle();
      return;
    }
    const segment = this.journal.seal();
    this.size = 0;
    // Requests still in flight are journaled again in the new segment: the sealed one is
    // deleted once loaded, and their answers (if any come) will be journaled after this point.
    if (this.inFlight.size > 0) this.journalSent([...this.inFlight.values()]);
    if (!segment) {
      this.settleIdle();
      return;
    }
    this.writing = (async () => {
      try {
        const result = await this.warehouse.loadJournal(segment.path, [journalMark(segment.id)]);
        this.journal.discard(segment.id);
        for (const [table, n] of Object.entries(result.counts ?? {}))
          this.loaded[table] = (this.loaded[table] ?? 0) + n;
      } catch (err) {
        // The rows stay in the journal segment: the next start replays them.
        this.writeError = err;
        this.opts.log.error({ err }, 'warehouse write failed; results kept in the journal');
      }
    })();
    void this.writing.then(() => {
      this.writing = null;
      if (this.draining || this.size >= this.opts.batchItems) this.startWrite();
      else if (this.size > 0 && !this.timer)
        this.timer = setTimeout(() => this.startWrite(), this.opts.flushMs);
      else this.settleIdle();
    });
  }

  private settleIdle(): void {
    if (this.writing || (this.size > 0 && !this.writeError)) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Write what is buffered; resolves when everything added so far is committed (or a write failed). */
  flush(): Promise<void> {
    this.draining = true;
    const done = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (!this.writing) this.startWrite();
    return done.then(() => {
      this.draining = false;
    });
  }

  /**
   * Commits what is buffered, then lets go of the warehouse file (a quota pause: nothing to
   * write for a while) so other processes can read it; the next batch opens it again.
   */
  release(): void {
    void this.flush()
      .then(() => this.warehouse.release())
      .catch((err: unknown) => this.opts.log.warn({ err }, 'closing the warehouse for the pause failed'));
  }

  /** Flush and report a write failure, if any. */
  async close(): Promise<void> {
    await this.flush();
    this.writePending();
    this.journal.close();
    if (this.failure) throw this.failure;
  }
}
