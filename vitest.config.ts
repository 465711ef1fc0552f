import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: integration files each start servers and DuckDB files.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
