/**
 * Says at the end of a local `npm test` which tests did not run and why, so a run without
 * TEST_DATABASE_URL is not taken for a full one: the PostgreSQL suites (and the suites that need
 * PostgreSQL for their own data) are skipped then, and a green summary alone would not tell.
 * CI passes its own reporters and judges the run with .ci/summarize.mjs, which fails on any test
 * that did not run.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** The known reasons a family of suites is skipped, by the tag in its name. */
const REASONS: ReadonlyArray<[tag: string, why: () => string | null]> = [
  ['[postgres]', () => (process.env.TEST_DATABASE_URL ? null : 'TEST_DATABASE_URL is not set')],
  ['[redis]', () => (process.env.TEST_DATABASE_URL ? null : 'TEST_DATABASE_URL is not set')],
  ['[redis-cluster]', () => (process.env.TEST_DATABASE_URL ? null : 'TEST_DATABASE_URL is not set')],
];

export default class NotRunReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const notRun = testModules.flatMap((module) =>
      [...module.children.allTests('skipped')].map((test) => ({
        file: module.moduleId,
        name: test.fullName,
        mode: test.options.mode,
      })),
    );
    if (notRun.length === 0) return;
    const byReason = new Map<string, Set<string>>();
    for (const test of notRun) {
      const known = REASONS.find(([tag, why]) => test.name.includes(tag) && why() !== null);
      const reason = known ? `${known[0]} suites: ${known[1]()}` : test.mode === 'todo' ? 'todo' : 'skipped';
      const files = byReason.get(reason) ?? new Set<string>();
      files.add(test.file.replace(`${process.cwd()}/`, ''));
      byReason.set(reason, files);
    }
    const lines = [`\n${notRun.length} tests did not run, so this was not a full run:`];
    for (const [reason, files] of byReason) {
      lines.push(`  ${reason}: ${[...files].sort().join(', ')}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
