// Reads vitest's JSON reports (one or more: `npm test`, `npm run test:faults`), sums them, checks
// that every suite family ran (PostgreSQL, Redis, Redis Cluster, Fastify) and that no test was
// skipped or left a todo, and prints the closing line "N passed, N failed" that CI judges
// the run by.
import { readFileSync } from 'node:fs';

const paths = process.argv.length > 2 ? process.argv.slice(2) : ['.vitest-report.json'];
const testResults = [];
let missingReports = 0;
for (const path of paths) {
  try {
    testResults.push(...JSON.parse(readFileSync(path, 'utf8')).testResults);
  } catch (error) {
    console.log(`no test report at ${path}: ${error.message}`);
    missingReports += 1;
  }
}
if (missingReports === paths.length) {
  console.log(`0 passed, ${missingReports} failed`);
  process.exit(1);
}

const tests = testResults.flatMap((file) => file.assertionResults ?? []);
const passed = tests.filter((test) => test.status === 'passed').length;
let failed = tests.filter((test) => test.status === 'failed').length + missingReports;
// Anything neither passed nor failed did not test: skipped, pending, todo (`it.todo`), disabled.
const NOT_RUN = new Set(['skipped', 'pending', 'todo', 'disabled']);
const skipped = tests.filter((test) => NOT_RUN.has(test.status)).length;
// A file that failed to load has no assertion results but a failed status.
const brokenFiles = testResults.filter((file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0);
failed += brokenFiles.length;
for (const file of brokenFiles) console.log(`failed to run: ${file.name}: ${String(file.message).slice(0, 300)}`);
// A file whose tests passed or never ran but which failed all the same: a hook (a `beforeAll` past
// its time-out leaves every test of the file skipped), an error outside any test.
const filesFailedOutsideTests = testResults.filter(
  (file) =>
    file.status === 'failed' &&
    (file.assertionResults ?? []).length > 0 &&
    !file.assertionResults.some((test) => test.status === 'failed'),
);
failed += filesFailedOutsideTests.length;
for (const file of filesFailedOutsideTests) {
  console.log(`failed outside its tests: ${file.name}: ${String(file.message ?? '').split('\n', 1)[0].slice(0, 300)}`);
}
// Name each failed test with the start of its first message: a CI log is often read only from its
// end, where vitest's own failure list has scrolled away.
for (const file of testResults) {
  for (const test of (file.assertionResults ?? []).filter((t) => t.status === 'failed')) {
    const message = String(test.failureMessages?.[0] ?? '').split('\n', 1)[0].slice(0, 300);
    console.log(`failed: ${file.name} > ${test.fullName}: ${message}`);
  }
}

/** The suite families CI must see pass: each runs the same suites on another store or transport. */
const FAMILIES = [
  ['[postgres]', 'PostgreSQL suite', 'is TEST_DATABASE_URL set?'],
  ['[redis]', 'Redis suite', 'is redis-server installed?'],
  ['[redis-cluster]', 'Redis Cluster suite', 'did the global setup start the cluster?'],
  ['[fastify]', 'Fastify transport', 'HTTP suites on HTTP_TRANSPORT=fastify'],
];
const familyPassed = FAMILIES.map(
  ([tag]) => tests.filter((test) => test.status === 'passed' && test.fullName.includes(tag)).length,
);
console.log(
  `${FAMILIES.map(([, name], i) => `${name}: ${familyPassed[i]} passed`).join('; ')}; not run in all: ${skipped}`,
);
if (skipped > 0) {
  // CI runs every suite: a test not run here is a missing service, a forgotten `.skip` or a todo.
  for (const test of tests.filter((t) => NOT_RUN.has(t.status)).slice(0, 20)) {
    console.log(`${test.status}: ${test.fullName}`);
  }
  failed += 1;
}
FAMILIES.forEach(([tag, name, hint], i) => {
  if (familyPassed[i] > 0) return;
  console.log(`The ${name} did not run: no passed test named ${tag} (${hint}).`);
  failed += 1;
});
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
