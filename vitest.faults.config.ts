import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the slow fault tests (child processes, database outages, slow clients),
 * kept out of the default run. One file at a time: they measure time-outs and latencies, and two
 * cores shared with another file's child processes would blur the figures.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
