import { expect, inject } from 'vitest';
import type { Simulator } from '../../src/simulator/types.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';
import { runTestSync } from './sync.ts';
import { uniquePrefix } from './tmp.ts';
import { attemptsOf, cleanPrefix, startWorker } from './worker-process.ts';

/**
 * The two queue drivers an end-to-end test runs on: the in-process one, and BullMQ on the
 * test run's Redis with two `fragsync worker` processes sharing the work with the sync's own
 * worker (each sync its own queue prefix, removed afterwards).
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
    const workers = [await startWorker(redisUrl, prefix), await startWorker(redisUrl, prefix)];
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        flags: { ...flags, redis: redisUrl, 'queue-prefix': prefix },
      });
      await Promise.all(workers.map((w) => w.stop()));
      // Both worker processes took part in a full run. A nightly's jobs go out in stages, a
      // few at a time (src/sync/gate.ts): the sync's own worker may take them all.
      if (summary.mode === 'full') expect(workers.map(attemptsOf).every((n) => n > 0)).toBe(true);
      return summary;
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await cleanPrefix(redisUrl, prefix);
    }
  },
};
