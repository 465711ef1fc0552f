import { hostname } from 'node:os';
import type { WarehouseHandle } from './handle.ts';
import type { RunningState } from './run-history.ts';
import { lockHolder, type LockHolder } from './writer-lock.ts';

/**
 * Whether a run still marked 'running' in sync_runs has a live process, for `fragsync runs`,
 * `fragsync status` and the dashboard. Every sync, on either queue driver, holds the
 * warehouse's writer lock (`<db>.lock`: its pid, host and process start) from before it opens
 * its row until after it closes it, so: a lock naming the run on this host is checked by its
 * pid and start (lockHolder drops a dead one, and a live pid whose process started at another
 * time: the pid given again); no lock naming the run means its process is gone (the lock is
 * beside the warehouse, whichever host the run is on). A lock naming it from another host (a
 * shared disk) cannot be checked by pid: the run's lease in Redis (BullMQ, renewed by the live
 * process only) says it runs; without it the answer is 'unknown'. The lock is read before the
 * warehouse and again after, so a run that starts or ends meanwhile is not taken for dead.
 */
export type Liveness = { state: 'running' } | { state: 'died' } | { state: 'unknown'; why: string };

export interface LivenessEvidence {
  /** The writer lock's holder read before the warehouse, and after. */
  before: LockHolder | null;
  after: LockHolder | null;
  /** The run holding the queue prefix's lease; undefined when Redis was not read. */
  lease?: string | null;
}

export function livenessOf(runId: string, e: LivenessEvidence): Liveness {
  // Not the lease first: it outlives a SIGKILL by up to 60% of queue.leaseMs, the pid does not.
  const holders = [e.before, e.after].filter(
    (h): h is LockHolder => h !== null && (h.runId === runId || h.runId === 'unknown'),
  );
  if (holders.length === 0) return { state: 'died' };
  // A lock being written (no host yet) or one of this host's with its pid alive.
  if (holders.some((h) => h.host === '' || h.host === hostname())) return { state: 'running' };
  if (e.lease === runId) return { state: 'running' };
  const h = holders[0]!;
  const redis = e.lease === undefined ? '; --redis reads its lease when it runs on BullMQ' : '';
  return {
    state: 'unknown',
    why: `its writer lock names pid ${h.pid} on ${h.host}, another host: not checkable from here${redis}`,
  };
}

/**
 * `read` (of the warehouse) between two reads of the writer lock (see above), and the liveness
 * of any run by what they found and `lease` (the queue prefix's lease holder when Redis was
 * read; undefined when not): `runs`, `status` and the dashboard all judge a run by this.
 */
export async function readWithLiveness<T>(
  dbPath: string,
  read: () => Promise<T>,
  lease?: string | null,
): Promise<{ value: T; liveness: (runId: string) => Liveness; holder: LockHolder | null }> {
  const before = lockHolder(dbPath);
  const value = await read();
  const after = lockHolder(dbPath);
  const evidence: LivenessEvidence = { before, after, ...(lease === undefined ? {} : { lease }) };
  return { value, liveness: (runId) => livenessOf(runId, evidence), holder: after };
}

/**
 * The runs of an open warehouse marked running whose process is gone ('died') or cannot be
 * checked ('unknown', with why), for runHistorySql's `running` (readWithLiveness).
 */
export async function runningStates(
  wh: Pick<WarehouseHandle, 'query'>,
  dbPath: string,
): Promise<{ states: RunningState; unknown: { runId: string; why: string }[] }> {
  const { value: rows, liveness } = await readWithLiveness(dbPath, () =>
    wh.query<{ run_id: string }>("SELECT run_id FROM sync_runs WHERE status = 'running'"),
  );
  const states = new Map<string, 'died' | 'unknown'>();
  const unknown: { runId: string; why: string }[] = [];
  for (const { run_id: runId } of rows) {
    const l = liveness(runId);
    if (l.state !== 'running') states.set(runId, l.state);
    if (l.state === 'unknown') unknown.push({ runId, why: l.why });
  }
  return { states, unknown };
}
