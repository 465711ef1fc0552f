/**
 * One base error class for the whole program. Every failure carries a stable `code`,
 * context fields that are safe to log (never a secret), and whether retrying the same
 * work later can succeed (`transient`). The queue maps errors to actions in one place
 * (src/queue/error-policy.ts): terminal errors are never retried, quota errors pause
 * until the reset, budget and payment errors stop the run cleanly.
 */
export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'REQUEST_INVALID'
  | 'RESPONSE_INVALID'
  | 'UNAUTHORIZED'
  | 'PAYMENT_REQUIRED'
  | 'RATE_LIMITED'
  | 'QUOTA_RESERVED'
  | 'BUDGET_EXHAUSTED'
  | 'NOT_FOUND'
  | 'API_CLIENT_ERROR'
  | 'API_SERVER_ERROR'
  | 'NETWORK'
  | 'REDIS_UNREACHABLE'
  | 'WAREHOUSE'
  | 'WAREHOUSE_LOCKED'
  | 'DISK_FULL'
  | 'INTERNAL';

export type ErrorContext = Record<string, string | number | boolean | null | undefined>;

export class FragsyncError extends Error {
  readonly code: ErrorCode;
  /** True when the same work may succeed if tried again later. */
  readonly transient: boolean;
  readonly context: ErrorContext;

  constructor(
    code: ErrorCode,
    message: string,
    options: { transient?: boolean; context?: ErrorContext; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.transient = options.transient ?? false;
    this.context = options.context ?? {};
  }

  /** A JSON-safe view for pino and for the quarantine table. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      transient: this.transient,
      ...this.context,
    };
  }
}

export class ConfigError extends FragsyncError {
  constructor(message: string, context: ErrorContext = {}) {
    super('CONFIG_INVALID', message, { context });
  }
}

/** Refusing a paid call whose parameters the spec already rules out: never pay for a known 400. */
export class RequestInvalidError extends FragsyncError {
  constructor(endpoint: string, message: string, context: ErrorContext = {}) {
    super('REQUEST_INVALID', `${endpoint}: ${message}`, { context: { endpoint, ...context } });
  }
}

/** A response that does not match the spec's schema: the record is quarantined, the sync goes on. */
export class ResponseInvalidError extends FragsyncError {
  readonly raw: unknown;
  constructor(endpoint: string, message: string, raw: unknown, context: ErrorContext = {}) {
    super('RESPONSE_INVALID', `${endpoint}: ${message}`, { context: { endpoint, ...context } });
    this.raw = raw;
  }
}

export class BudgetExhaustedError extends FragsyncError {
  constructor(message: string, context: ErrorContext = {}) {
    super('BUDGET_EXHAUSTED', message, { context });
  }
}

/**
 * The governor admits nothing more of this run: one of its calls was answered 402 or 401, in
 * this process or another. Carries that answer's code, so the queue stops the run as it would
 * on the answer itself (error-policy.ts); this request was not sent.
 */
export class RunHaltedError extends FragsyncError {
  constructor(code: 'PAYMENT_REQUIRED' | 'UNAUTHORIZED', message: string, context: ErrorContext = {}) {
    super(code, message, { context });
  }
}

/** The quota is down to the reserve (or a 429 arrived): nothing may be sent before `resetAt`. */
export class QuotaPausedError extends FragsyncError {
  readonly resetAt: Date;
  constructor(resetAt: Date, message: string, context: ErrorContext = {}) {
    super('QUOTA_RESERVED', message, {
      transient: true,
      context: { resetAt: resetAt.toISOString(), ...context },
    });
    this.resetAt = resetAt;
  }
}

export function isFragsyncError(err: unknown): err is FragsyncError {
  return err instanceof FragsyncError;
}

/** One line for a human: the message, without a stack, never a secret. */
export function oneLine(err: unknown): string {
  // A config error's message is the user's ("config: …"), the same wherever it is printed.
  if (err instanceof ConfigError) return err.message;
  if (err instanceof FragsyncError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
