import { expect, inject } from 'vitest';
import type { Simulator } from '../../src/simulator/types.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
import { runTestSync } from './sync.ts';
import { uniquePrefix } from './tmp.ts';
import { cleanPrefix, startWorkers } from './worker-process.ts';

/**
 * The two queue drivers an end-to-end test runs on: the in-process one, and BullMQ on the
 * test run's Redis with two `fragsync worker` processes on the queue beside the sync's own
 * worker (each sync its own queue prefix, removed afterwards). Which of them takes a job is
 * BullMQ's choice (whoever asks first), so the worker processes' share is not asserted here:
 * where the queue holds no more jobs than the sync's own worker runs at once (a small
 * admission window, a nightly's stages), that worker may take every job, and the clean-clone
 * CI run saw it do so (test/e2e/admission-window.test.ts, a window of 6 jobs).
 */
export interface Driver {
  name: string;
  /** One sync of `sim` into `dbPath` with this driver. */
  sync(sim: Simulator, dbPath: string, flags?: Record<string, string>): Promise<SyncSummary>;
}

export const inProcess: Driver = {
  name: 'in-process driver',
  sync: (sim, dbPath, flags = {}) => runTestSync({ baseUrl: sim.url, dbPath, flags }),
};

export const bullmq: Driver = {
  name: 'BullMQ driver with two worker processes',
  async sync(sim, dbPath, flags = {}) {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('sync');
    // Both started at once: each is ready (waiting for jobs) before the sync begins.
    const workers = await startWorkers(2, redisUrl, prefix, []);
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { ...flags, redis: redisUrl, 'queue-prefix': prefix },
      });
      await Promise.all(workers.map((w) => w.stop()));
      // Both worker processes ran on this queue to the end: each stopped cleanly on SIGTERM
      // with its count of job attempts (zero or more, see above).
      for (const w of workers) {
        expect(w.child.exitCode, w.output.join('')).toBe(0);
        expect(w.output.join('')).toMatch(/: stopped after \d+ job attempts/);
      }
      return summary;
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  },
};

/**
 * `describe.each` rows of a test that starts its own syncs on each driver: the driver's name,
 * and whether it runs on BullMQ (the test's own Redis prefix) rather than in process.
 */
export const DRIVER_MODES: [string, boolean][] = [
  ['in-process driver', false],
  ['BullMQ driver', true],
];
