import { isAddressable } from '../src/api/paths.ts';
import { isFragsyncError, ResponseInvalidError } from '../src/errors.ts';
import type { EntityKind } from '../src/domain/entities.ts';
import { Halted } from '../src/domain/calls.ts';
import type { JobResult, NamedMark } from './types.ts';
import { emptyResult } from './types.ts';

/**
 * The two outcomes every detail job shares: a response that fails validation goes to
 * quarantine with its raw payload (the sync goes on), and a 404 means upstream no longer
 * has the item (it leaves the current tables and stays in history). Every other error is
 * thrown to the queue, whose error policy decides (src/queue/error-policy.ts).
 */
export async function guarded(
  entity: EntityKind,
  key: string,
  dataset: string,
  body: () => Promise<JobResult>,
): Promise<JobResult> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof ResponseInvalidError) {
      const result = emptyResult();
      result.items.push({
        kind: 'quarantine',
        endpoint: String(err.context.endpoint ?? ''),
        key,
        reason: err.message,
        raw: err.raw ?? null,
      });
      // Recorded as fetched: paying again for the same invalid answer within a cycle helps no one.
      // The nightly asks again while the row is open (src/warehouse/sync-state.ts oweQuarantined).
      result.progress.push({ kind: 'fetched', entity, key, dataset });
      return result;
    }
    if (isFragsyncError(err) && err.code === 'NOT_FOUND') {
      const result = emptyResult();
      result.items.push({ kind: 'removal', entity, keys: [key] });
      result.progress.push({ kind: 'fetched', entity, key, dataset });
      return result;
    }
    throw err;
  }
}

/**
 * The entities `keys` of one response or list (see NamedMark), those a path can address:
 * a key the spec allows but no request can name (an empty perfumer slug) is stored where
 * the response put it and never followed.
 */
export function named(entity: EntityKind, keys: string[], source: string): NamedMark {
  const kind = entity === 'fragrance' ? 'id' : 'slug';
  // A loop, not a closure for every/filter: tsx names each closure made here (a
  // defineProperty per call, on every similar list).
  let all = true;
  for (const k of keys) if (!isAddressable(kind, k)) all = false;
  return { kind: 'named', entity, keys: all ? keys : keys.filter((k) => isAddressable(kind, k)), source };
}

export function fetched(entity: EntityKind, key: string, dataset: string) {
  return { kind: 'fetched' as const, entity, key, dataset };
}

/** Errors that stop or pause the run: what a walk bought before one is worth keeping. */
const RUN_STOPS = new Set([
  'RATE_LIMITED',
  'QUOTA_RESERVED',
  'BUDGET_EXHAUSTED',
  'PAYMENT_REQUIRED',
  'UNAUTHORIZED',
]);

/**
 * A halt (the run stopped at once: a 402 or 401 elsewhere, a lapsed lease) stops the walk
 * the same way: the pages it bought before are paid, and kept, not bought again.
 */
export function stopsTheRun(err: unknown): boolean {
  return err instanceof Halted || (isFragsyncError(err) && RUN_STOPS.has(err.code));
}
