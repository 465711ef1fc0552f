import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processStart, startTicksOf } from '../../src/util/process-start.ts';
import { lockHolder, lockPath, WriterLock, type LockHolder } from '../../src/warehouse/writer-lock.ts';
import { reusedPidHolder } from '../helpers/dead-lock.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * A killed sync's pid given again to another process must not keep its writer lock alive:
 * the lock records the holder's start (/proc/<pid>/stat field 22 and the boot id), and a
 * live pid counts as the holder only when its process started then. Real lock files beside
 * paths in a temp folder; the live processes are this test's and a child it starts.
 */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-pid-reuse-');
});
afterAll(async () => {
  await dir.cleanup();
});

let n = 0;
function withLock(holder: LockHolder): string {
  const db = join(dir.path, `wh-${n++}.duckdb`);
  writeFileSync(lockPath(db), JSON.stringify(holder));
  return db;
}

describe('the writer lock and a reused pid', () => {
  it('records the holding process start; the live holder reads as itself', () => {
    const db = join(dir.path, 'held.duckdb');
    const lock = WriterLock.acquire(db, 'run-live');
    try {
      const h = lockHolder(db);
      expect(h).toMatchObject({
        pid: process.pid,
        runId: 'run-live',
        processStart: processStart(process.pid),
      });
      expect(h!.processStart!.ticks).toBeGreaterThan(0);
    } finally {
      lock.release();
    }
  });

  it('a live pid with another start (or from another boot) is not the holder: the lock is stale and taken over', () => {
    for (const otherBoot of [false, true]) {
      const stale = reusedPidHolder('run-killed', { otherBoot });
      const db = withLock(stale);
      expect(lockHolder(db)).toBeNull();
      const lock = WriterLock.acquire(db, 'run-next');
      try {
        expect(lock.tookOver).toMatchObject({ runId: 'run-killed', pid: process.pid });
      } finally {
        lock.release();
      }
    }
  });

  it("a child process's own start keeps its lock; a lock without a start (older fragsync) keeps today's rule", async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      const start = processStart(child.pid!)!;
      const base = { host: hostname(), startedAt: '', state: 'writing', pausedUntil: null } as const;
      const own = withLock({ ...base, pid: child.pid!, runId: 'run-child', processStart: start });
      expect(lockHolder(own)).toMatchObject({ runId: 'run-child' });
      const old = withLock({ ...base, pid: child.pid!, runId: 'run-old' });
      expect(lockHolder(old)).toMatchObject({ runId: 'run-old' });
      const other = withLock({
        ...base,
        pid: child.pid!,
        runId: 'run-x',
        processStart: { ...start, ticks: start.ticks - 1 },
      });
      expect(lockHolder(other)).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reads field 22 after the name, whatever the name holds (spaces, parentheses)', () => {
    const rest = Array.from({ length: 50 }, (_, i) => String(i + 3)).join(' ');
    expect(startTicksOf(`4242 (a) b (c)) ${rest}`)).toBe(22);
    expect(startTicksOf('4242 (cut')).toBeNull();
  });
});
