import { sha1Hex } from '../src/util/sha1.ts';
import type { JobKind, JobPayloads, JobSpec } from './types.ts';

/**
 * A job id derived from the job's content, so that enqueuing the same work twice in a run
 * is one job (BullMQ ignores an add whose id exists) and never pays twice. BullMQ forbids
 * ':' and all-digit ids; a hex digest behind the kind avoids both and any id length issue.
 */
export function jobId(kind: JobKind, payload: JobPayloads[JobKind]): string {
  const digest = sha1Hex(stableJson(payload)).slice(0, 20);
  return `${kind}-${digest}`;
}

/** Ids already computed, per spec object: the frontier and the coordinator both ask for it. */
const specIds = new WeakMap<JobSpec, string>();

export function specId(spec: JobSpec): string {
  let id = specIds.get(spec);
  if (id === undefined) {
    id = jobId(spec.kind, spec.payload);
    specIds.set(spec, id);
  }
  return id;
}

/**
 * A job's content as a key, exact and without a digest (kind, then its payload's stable JSON,
 * which starts with '{'): for sets within one process, such as the admission window, where
 * the id's SHA-1 (made for Redis's job ids) was about 1.5% of the fetching thread's CPU.
 */
export function specKey(spec: JobSpec): string {
  return `${spec.kind}${stableJson(spec.payload)}`;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * A walk payload tagged with its pass (see JobPayloads.fragrancesPage). The first pass has no
 * tag, so its ids are the ones a run without re-walks makes (jobs already queued in Redis
 * by an older version keep matching).
 */
export function withPass<P extends object>(payload: P, pass: number | undefined): P & { pass?: number } {
  return pass ? { ...payload, pass } : payload;
}

export function job<K extends JobKind>(kind: K, payload: JobPayloads[K], priority: number): JobSpec<K> {
  return { kind, payload, priority };
}

/**
 * Priorities, lower first: walks (they find what is new and removed); in a nightly, new items
 * and everything they need, then what a signal says changed (a brand whose membership moved,
 * a similar list naming a removed item, an item missing from the list); then entities,
 * profiles (they discover brands and perfumers) and the long tail. A nightly's due refreshes
 * go after all of that, ranked (src/sync/rank.ts): the items on a chart or trending from
 * `hot`, then the rest by age × popularity from `due`, one level per rank (RANK_LEVELS at most
 * each), so a capped run spends its budget in this order.
 */
export const RANK_LEVELS = 2000;

export const PRIORITY = {
  walk: 1,
  fresh: 2,
  signal: 3,
  entity: 4,
  profile: 5,
  detail: 6,
  optional: 7,
  hot: 8,
  due: 8 + RANK_LEVELS,
} as const;
