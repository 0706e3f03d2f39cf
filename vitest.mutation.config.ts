import { defineConfig } from 'vitest/config';
import groups from './scripts/mutation-groups.json' with { type: 'json' };
import base from './vitest.config.js';

/**
 * The vitest configuration StrykerJS runs for one group of the security core
 * (MUTATION_GROUP, see stryker.config.mjs): only the test files that cover the group's files. The
 * store-parametrised HTTP suites run once (PGlite on Koa): a mutant of the security core behaves
 * the same on every store, so the repeats would only multiply the run time.
 *
 * The files are chosen here and not with Stryker's `testFiles`: with `testFiles`, StrykerJS 10.1
 * activates a static mutant (one in code run at import, such as a table of algorithms) only after
 * the module loaded, and reports it survived (stryker-js issue 6144).
 */
const group = groups[process.env.MUTATION_GROUP as keyof typeof groups];
if (!group) throw new Error(`MUTATION_GROUP must be one of: ${Object.keys(groups).join(', ')}`);

// Not mergeConfig: it would add these files to the normal `include` instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: group.testFiles,
    // Stryker filters tests by name on every mutant: the list of tests not run would be noise.
    reporters: ['default'],
    env: { GATEHOUSE_TEST_MATRIX: 'lean' },
  },
});
