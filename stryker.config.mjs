// @ts-check
/**
 * StrykerJS (mutation testing) of the security core, one group of source files at a time:
 * `npm run test:mutation [group...]` (scripts/mutation.mjs) runs each group with
 * MUTATION_GROUP=<group> (the groups: scripts/mutation-groups.json). A group lists the files it
 * mutates and the test files that cover them (vitest.mutation.config.ts runs only those): a
 * whole-suite dry run would take far too long, and a mutant only needs the tests that can notice
 * it. Incremental: a re-run only tests the mutants of changed code or changed tests. StrykerJS
 * itself lives in scripts/mutation-tools, installed by scripts/mutation.mjs.
 */

import GROUPS from './scripts/mutation-groups.json' with { type: 'json' };

const group = process.env.MUTATION_GROUP ?? '';
const selected = GROUPS[group];
if (!selected) {
  throw new Error(`MUTATION_GROUP must be one of: ${Object.keys(GROUPS).join(', ')} (got "${group}")`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: selected.mutate,
  coverageAnalysis: 'perTest',
  // Two cores shared with everything else on the machine.
  concurrency: 1,
  timeoutMS: 30_000,
  incremental: true,
  incrementalFile: `reports/mutation/${group}.incremental.json`,
  reporters: ['json', 'clear-text', 'progress-append-only'],
  jsonReporter: { fileName: `reports/mutation/groups/${group}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // Only what the tests read: the sandbox is a copy.
  ignorePatterns: ['reports', 'dist', 'data', 'coverage', 'bench-results', 'packs', '.ci', 'docs', 'scripts/mutation-tools'],
  thresholds: { high: 95, low: 90, break: null },
};
