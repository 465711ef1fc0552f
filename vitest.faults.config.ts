import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the fault scenarios (test/faults/*.fault.ts) that kill processes,
 * lose Redis's data and interrupt runs against the simulator with added latency. They take
 * minutes, so `npm test` (vitest.config.ts, `*.test.ts` only) leaves them out; CI runs them
 * as a job of their own.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    // A scenario is several full syncs with faults in between, on a busy machine.
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Each scenario starts its own service, processes and DuckDB files: one at a time keeps
    // the latencies they measure meaningful on two cores.
    maxWorkers: 1,
    globalSetup: ['test/global-setup.ts'],
  },
});
