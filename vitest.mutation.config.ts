import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The vitest configuration StrykerJS runs (`npm run test:mutation`, stryker.config.mjs): the
 * normal one, with the store-parametrised HTTP suites once (PGlite on Koa). A mutant of the
 * security core behaves the same on every store, so the repeats would only multiply the run time;
 * the stores' own contract suites still run on every store. Stryker picks the covering test files
 * of each group itself (`testFiles`).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      env: { GATEHOUSE_TEST_MATRIX: 'lean' },
    },
  }),
);
