import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { LockHolder } from '../../src/warehouse/writer-lock.ts';

/**
 * The writer lock a sync killed with `kill -9` leaves behind: this host, and the pid of a
 * process that has exited (started and waited for here).
 */
export function deadHolder(runId: string): LockHolder {
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  return { pid: gone, host: hostname(), runId, startedAt: '', state: 'writing', pausedUntil: null };
}
