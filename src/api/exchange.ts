import type { Dispatcher } from 'undici';
import type { HeaderBag } from './rate-limit.ts';

/**
 * One request's answer read straight from undici's dispatch handler: status, the few headers
 * the client reads, and the body as text. `pool.request` + `body.text()` made a Node Readable
 * stream per response, an object of every header, and two promises; this makes none of them
 * (a few percent of the fetching thread's CPU per call). What it hands back is what they gave:
 * headers lower-cased with the first of repeated values, latin1 as undici decodes them; the
 * body decoded as UTF-8 without a leading BOM, as `body.text()` does.
 */
export interface Answer {
  status: number;
  /** Only the headers in WANTED; the rest are not decoded. */
  headers: HeaderBag;
}

/** The headers read (rate-limit.ts's, and the content type), by length then by name. */
const WANTED = new Set([
  'content-type',
  'date',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);
const WANTED_LENGTHS = new Set([...WANTED].map((h) => h.length));

/**
 * The request's own header carrying its attempt's call id, the one its ledger row carries: an
 * opaque per-process counter that tells the service nothing it could misuse.
 */
export const CALL_ID_HEADER = 'x-fragsync-call';

/** Told when its request's headers are written. */
export interface SentListener {
  sent(): void;
}

/** Told once: the answer and its body, or why it ended (`answer` null: no status arrived). */
export type Settle = (answer: Answer | null, text: string | null, error: unknown) => void;

export class Exchange implements Dispatcher.DispatchHandler {
  private abort: ((reason?: Error) => void) | null = null;
  private answer: Answer | null = null;
  private chunks: Buffer[] = [];
  private length = 0;
  private done = false;
  private readonly onAbort: (() => void) | null = null;

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly settle: Settle,
    private readonly listener: SentListener | undefined,
  ) {
    if (signal && !signal.aborted) {
      this.onAbort = () => this.abort?.(reasonOf(signal));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /**
   * undici calls this when the request leaves its queue for a connection (writeH1), and then,
   * in the same synchronous step, writes its headers to the socket: the moment a request is
   * sent, so the journal's line for it is written here, before its bytes.
   */
  onConnect(abort: (reason?: Error) => void): void {
    if (this.signal?.aborted) return abort(reasonOf(this.signal));
    try {
      this.listener?.sent();
    } catch {
      // Thrown into undici it would fail this request after all. The journal's callback
      // records a line it cannot write itself (LoadStage.failure), which stops the run cleanly.
    }
    // Only now can the signal abort it: a request whose line is written leaves, even if the
    // listener stopped the jobs (a journal without room), and is answered and ledgered.
    this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // informational: the answer follows
    const headers: HeaderBag = {};
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const raw = rawHeaders[i]!;
      if (!WANTED_LENGTHS.has(raw.length)) continue;
      const name = raw.toString('latin1').toLowerCase();
      if (WANTED.has(name) && headers[name] === undefined)
        headers[name] = rawHeaders[i + 1]!.toString('latin1');
    }
    this.answer = { status: statusCode, headers };
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    const { chunks, length } = this;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
    const start = length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    this.end(this.answer, length === 0 ? '' : body.toString('utf8', start, length), null);
  }

  onError(err: Error): void {
    this.end(this.answer, null, err);
  }

  private end(answer: Answer | null, text: string | null, error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.chunks = [];
    if (this.onAbort) this.signal!.removeEventListener('abort', this.onAbort);
    this.settle(answer, text, error);
  }
}

function reasonOf(signal: AbortSignal): Error {
  return (signal.reason as Error | undefined) ?? new DOMException('This operation was aborted', 'AbortError');
}
