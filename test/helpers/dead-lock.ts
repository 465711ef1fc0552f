import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { processStart } from '../../src/util/process-start.ts';
import type { LockHolder } from '../../src/warehouse/writer-lock.ts';

/**
 * The writer lock a sync killed with `kill -9` leaves behind: this host, and the pid of a
 * process that has exited (started and waited for here).
 */
export function deadHolder(runId: string): LockHolder {
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  return { pid: gone, host: hostname(), runId, startedAt: '', state: 'writing', pausedUntil: null };
}

/**
 * The lock of a killed sync whose pid the kernel has given to another process since: the pid
 * of a live process (this test's), with the start the killed one had (not this process's).
 * `bootId` other than this boot's: a lock left from before a reboot.
 */
export function reusedPidHolder(runId: string, { otherBoot = false } = {}): LockHolder {
  const own = processStart(process.pid);
  if (!own) throw new Error('no /proc here: a reused pid cannot be told apart');
  const processStartOf = otherBoot
    ? { ticks: own.ticks, bootId: '00000000-0000-0000-0000-000000000000' }
    : { ticks: own.ticks + 1, bootId: own.bootId };
  return {
    pid: process.pid,
    host: hostname(),
    runId,
    startedAt: '',
    state: 'writing',
    pausedUntil: null,
    processStart: processStartOf,
  };
}
