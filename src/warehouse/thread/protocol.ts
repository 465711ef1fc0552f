import { FragsyncError, type ErrorContext } from '../../errors.ts';

/** What the loader thread is started with. */
export interface ThreadInit {
  path: string;
  /** pino level of the thread's logger; its lines are forwarded to the opener's logger. */
  logLevel: string;
  /** See OpenOptions.releaseIdleMs. */
  releaseIdleMs: number | null;
}

/** A call of one WarehouseHandle method; answered by a Reply with the same id. */
export interface Call {
  id: number;
  method: string;
  args: unknown[];
}

/** An error as it crosses the thread boundary (class instances do not survive the copy). */
export interface WireError {
  /** Whether it was a FragsyncError (its code is then one of ours, not an errno). */
  fragsync: boolean;
  name: string;
  code: string | null;
  message: string;
  context: ErrorContext;
  transient: boolean;
}

export type FromThread =
  | { type: 'ready'; migrated: readonly number[] }
  | { type: 'openFailed'; error: WireError }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  /** One pino JSON line written in the thread. */
  | { type: 'log'; line: string };

export function toWire(err: unknown): WireError {
  const e = err as { name?: unknown; code?: unknown; context?: unknown; transient?: unknown } | null;
  return {
    fragsync: err instanceof FragsyncError,
    name: typeof e?.name === 'string' ? e.name : 'Error',
    code: typeof e?.code === 'string' ? e.code : null,
    message: err instanceof Error ? err.message : String(err),
    context: (typeof e?.context === 'object' && e.context !== null ? e.context : {}) as ErrorContext,
    transient: e?.transient === true,
  };
}
