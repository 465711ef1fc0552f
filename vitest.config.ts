import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores, three files at once: integration files each start servers and DuckDB files,
    // but many spend most of their time waiting (for a quota reset, slow answers, a cron
    // slot): governed-quota and governed-workers used 0.28 of a core over 88 s. Twelve of the
    // longest files took 255 s with two workers, 178 s and 244 s with three (214-230 s of
    // CPU each time), at load averages of 8-10 from other work on the machine.
    maxWorkers: 3,
    globalSetup: ['test/global-setup.ts'],
  },
});
