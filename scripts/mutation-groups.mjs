/**
 * The security core under mutation testing, in groups: the files a group mutates and the test
 * files that cover them (each mutant only runs the tests that reached it in the dry run).
 * Read by stryker.config.mjs and scripts/mutation.mjs.
 *
 * @type {Record<string, { mutate: string[]; testFiles: string[] }>}
 */
export const GROUPS = {
  throttle: {
    mutate: ['src/domain/login/login-throttle.ts', 'src/domain/login/address-throttle.ts'],
    testFiles: ['test/unit/login-throttle.test.ts', 'test/unit/address-throttle.test.ts'],
  },
};
