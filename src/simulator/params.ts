/**
 * Parameter validation shared by the handlers: the spec's bounds, and the error type the
 * server turns into an error response.
 */
import type { Catalogue } from './catalogue.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface HandlerInput {
  cat: Catalogue;
  /** Decoded id or slug from the path. */
  key: string;
  query: URLSearchParams;
  body: unknown;
  /** The variant's code for 400s other than INVALID_QUERY. */
  bad400: string;
}

export function intParam(
  input: HandlerInput,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = input.query.get(name);
  if (raw === null) return fallback;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) {
    throw new ApiError(400, input.bad400, `'${name}' must be an integer from ${min} to ${max}.`);
  }
  return n;
}
