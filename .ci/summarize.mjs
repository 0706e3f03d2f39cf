// Reads vitest's JSON reports (one or more: `npm test`, `npm run test:faults`), sums them, checks
// that the PostgreSQL suites ran, and prints the closing line "N passed, N failed" that CI judges
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
const skipped = tests.filter((test) => test.status === 'skipped' || test.status === 'pending').length;
// A file that failed to load has no assertion results but a failed status.
const brokenFiles = testResults.filter((file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0);
failed += brokenFiles.length;
for (const file of brokenFiles) console.log(`failed to run: ${file.name}: ${String(file.message).slice(0, 300)}`);

const postgresPassed = tests.filter((test) => test.status === 'passed' && test.fullName.includes('[postgres]')).length;
const redisPassed = tests.filter((test) => test.status === 'passed' && test.fullName.includes('[redis]')).length;
const fastifyPassed = tests.filter((test) => test.status === 'passed' && test.fullName.includes('[fastify]')).length;
console.log(
  `PostgreSQL suite: ${postgresPassed} passed; Redis suite: ${redisPassed} passed; Fastify transport: ${fastifyPassed} passed; skipped in all: ${skipped}`,
);
if (skipped > 0) {
  // CI runs every suite: a skipped test here means a missing service or a forgotten `.skip`.
  for (const test of tests.filter((t) => t.status === 'skipped' || t.status === 'pending').slice(0, 20)) {
    console.log(`skipped: ${test.fullName}`);
  }
  failed += 1;
}
if (postgresPassed === 0) {
  console.log('The PostgreSQL suite did not run (is TEST_DATABASE_URL set?).');
  failed += 1;
}
if (fastifyPassed === 0 && tests.length > 100) {
  console.log('The HTTP suites did not run on the Fastify transport.');
  failed += 1;
}
if (redisPassed === 0 && tests.length > 100) {
  console.log('The Redis suite did not run (is redis-server installed?).');
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
