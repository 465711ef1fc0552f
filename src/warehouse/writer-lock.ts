import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { asProcessStart, processStart, sameProcess, type ProcessStart } from '../util/process-start.ts';
import { WarehouseError } from './warehouse-error.ts';

/**
 * fragsync's own writer lock, `<db>.lock` beside the warehouse, taken by a sync for its
 * whole run. DuckDB's lock lasts only while the file is open, and a sync now closes the file
 * whenever it has nothing to write (a quota pause, a quiet moment) so analysts can read it:
 * this lock keeps a second sync (or any other writer) out meanwhile. Readers ignore it; it
 * tells them which run holds the file when DuckDB refuses them.
 */
export interface LockHolder {
  pid: number;
  host: string;
  runId: string;
  startedAt: string;
  /** 'writing': the run may hold the file now; 'paused': quota pause until `pausedUntil`. */
  state: 'writing' | 'paused';
  pausedUntil: string | null;
  /**
   * When the holding process started (Linux /proc; absent elsewhere, and in locks written
   * before it was kept): a live pid with another start is another process given the pid again.
   */
  processStart?: ProcessStart;
  /**
   * Set by a second SIGINT or SIGTERM just before the process ends by it (markStoppedAtOnce):
   * no DuckDB write is safe then, so the next sync, taking the lock over, records the run
   * 'interrupted' from this (sync/dead-runs.ts) rather than 'died'.
   */
  stoppedAtOnce?: StoppedAtOnce;
}

/** A run stopped at once: the signal, when, and the spend its process had counted. */
export interface StoppedAtOnce {
  signal: string;
  at: string;
  calls: number;
  cents: number;
}

/** The locks this process holds, for markStoppedAtOnce. */
const held = new Set<WriterLock>();

/**
 * Writes `stop` into every lock this process holds, synchronously (a second signal's handler
 * runs it just before the process ends; a failed write leaves the lock as it was).
 */
export function markStoppedAtOnce(stop: StoppedAtOnce): void {
  for (const lock of held) lock.note({ stoppedAtOnce: stop });
}

/** An empty or half-written lock file younger than this is a holder still writing it. */
const FRESH_MS = 10_000;

export const lockPath = (dbPath: string): string => `${resolve(dbPath)}.lock`;

/** What a lock file says, alive or not; null for no file or one not (fully) written. */
function readHolder(path: string): LockHolder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder | null;
    return holder && typeof holder.pid === 'number' ? holder : null;
  } catch {
    return null;
  }
}

/** The lock's holder, or null when there is none (no file, or its process is gone). */
export function lockHolder(dbPath: string): LockHolder | null {
  const path = lockPath(dbPath);
  if (!existsSync(path)) return null;
  const holder = readHolder(path);
  if (!holder) {
    // Created but not written yet (a holder between open and write), or left half-written
    // by a crash long ago.
    const young = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) < FRESH_MS;
    return young
      ? { pid: 0, host: '', runId: 'unknown', startedAt: '', state: 'writing', pausedUntil: null }
      : null;
  }
  return holder.host === hostname() && !alive(holder) ? null : holder;
}

/**
 * Whether a holder on this host is still running: its pid alive and, when the lock recorded
 * the process's start and /proc can tell, the pid's process started then (not a later one
 * given the pid after the holder was killed, nor one of another boot).
 */
function alive({ pid, processStart: recorded }: LockHolder): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = asProcessStart(recorded);
  return start === null || sameProcess(pid, start) !== false;
}

/** "sync run R (pid P on H, started T)": who holds the lock, for one-line messages. */
export function describeHolder(h: LockHolder): string {
  const where = h.host && h.host !== hostname() ? ` on ${h.host}` : '';
  const since = h.startedAt ? `, started ${h.startedAt}` : '';
  return `sync run ${h.runId} (pid ${h.pid}${where}${since})`;
}

/** Refuses a writer when another process holds the lock (a running sync). */
export function refuseIfLocked(dbPath: string, what: string): void {
  const h = lockHolder(dbPath);
  if (h && !(h.pid === process.pid && h.host === hostname())) throw lockedBy(dbPath, what, h);
}

function lockedBy(dbPath: string, what: string, h: LockHolder): WarehouseError {
  const file = resolve(dbPath);
  return new WarehouseError(
    'WAREHOUSE_LOCKED',
    `${what}: ${file} is in use by another process: ${describeHolder(h)} is syncing it (one sync per warehouse; lock file ${lockPath(file)})`,
    { path: file, runId: h.runId, pid: h.pid },
  );
}

export class WriterLock {
  private released = false;

  private constructor(
    readonly dbPath: string,
    private holder: LockHolder,
    /** The holder of a lock left by a process that is gone, taken over here (else null). */
    readonly tookOver: LockHolder | null = null,
  ) {}

  /**
   * Takes the lock for `runId`, or throws WAREHOUSE_LOCKED naming the run that holds it. A
   * lock whose process is gone (a killed sync on this host) is taken over.
   */
  static acquire(dbPath: string, runId: string): WriterLock {
    const path = lockPath(dbPath);
    const holder: LockHolder = {
      pid: process.pid,
      host: hostname(),
      runId,
      startedAt: new Date().toISOString(),
      state: 'writing',
      pausedUntil: null,
    };
    const start = processStart(process.pid);
    if (start) holder.processStart = start;
    let stale: LockHolder | null = null;
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeFileSync(fd, JSON.stringify(holder));
        } finally {
          closeSync(fd);
        }
        const lock = new WriterLock(dbPath, holder, stale);
        held.add(lock);
        return lock;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const other = lockHolder(dbPath);
      if (other || attempt > 2) throw lockedBy(dbPath, 'cannot open warehouse', other ?? holder);
      // Stale: its process is gone. Renamed aside first, so two takers cannot both remove it;
      // who held it is kept, to say which process a run found dead had (sync/dead-runs.ts).
      try {
        const aside = `${path}.stale-${process.pid}`;
        renameSync(path, aside);
        stale = readHolder(aside);
        rmSync(aside, { force: true });
      } catch {
        // Someone else took it over first: try again, and meet their lock.
      }
    }
  }

  /** Records the run's pause (readers are told until when), or its end (null). */
  paused(until: Date | null): void {
    this.note({ state: until ? 'paused' : 'writing', pausedUntil: until ? until.toISOString() : null });
  }

  /** Rewrites the lock file with `change` (tmp and rename: a reader never sees half of it). */
  note(change: Partial<LockHolder>): void {
    if (this.released) return;
    this.holder = { ...this.holder, ...change };
    const path = lockPath(this.dbPath);
    try {
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.holder));
      renameSync(tmp, path);
    } catch {
      // Only what readers are told: the lock itself still stands.
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this);
    const h = lockHolder(this.dbPath);
    if (h && h.pid === process.pid && h.runId === this.holder.runId)
      rmSync(lockPath(this.dbPath), { force: true });
  }
}
