import { subscribe } from 'node:diagnostics_channel';

/**
 * Knowing the moment a request's headers go onto the wire. undici publishes every request's
 * header block on `undici:client:sendHeaders` just before it writes it to the socket (for a
 * request that waited for a free connection, that is when it leaves the queue, not when it was
 * made). A request that wants to know carries its call id in a header of its own; the one
 * subscriber finds the id in the block and calls back, synchronously, before the write.
 *
 * The header tells the service nothing it could misuse: an opaque per-process counter.
 */
export const CALL_ID_HEADER = 'x-fragsync-call';

const MARK = `${CALL_ID_HEADER}: `;
/** Told when its request's headers are written. */
export interface SentListener {
  sent(): void;
}

const waiting = new Map<string, SentListener>();
let subscribed = false;

function onSendHeaders(message: unknown): void {
  const headers = (message as { headers?: unknown }).headers;
  if (typeof headers !== 'string') return;
  const at = headers.indexOf(MARK);
  if (at < 0) return;
  const end = headers.indexOf('\r\n', at);
  const id = headers.slice(at + MARK.length, end < 0 ? undefined : end);
  const listener = waiting.get(id);
  if (!listener) return;
  waiting.delete(id);
  try {
    listener.sent();
  } catch {
    // A subscriber's exception would surface as an uncaught one. The journal's callback
    // records a line it cannot write itself (LoadStage.failure), which stops the run cleanly.
  }
}

/** Tells `listener` when the request carrying `callId` is written; returns the cancel (request done). */
export function whenSent(callId: string, listener: SentListener): () => void {
  if (!subscribed) {
    subscribe('undici:client:sendHeaders', onSendHeaders);
    subscribed = true;
  }
  waiting.set(callId, listener);
  return () => waiting.delete(callId);
}
