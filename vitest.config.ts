import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The slow fault tests run with `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/faults/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // The usual output, then which tests did not run and why (CI passes its own reporters).
    reporters: ['default', './test/support/not-run-reporter.ts'],
    // Limits for a hang, not for speed: CI runs on whatever machine submits, and on a slow day the
    // same suite takes twice as long (docs/testing.md); a command-line test near 30 s must not fail.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: more workers only fight over argon2 and the database.
    maxWorkers: 2,
    // A worker keeps its imported modules from one test file to the next (the service's module
    // graph costs each file a few seconds of import otherwise). Safe while tests keep no state in
    // modules they share: no vi.mock, no process.env writes, spies restored, fake timers undone.
    isolate: false,
  },
});
