#!/usr/bin/env node
/**
 * `npm run test:mutation [group...]`: StrykerJS over the security core, one group of files at a
 * time (stryker.config.mjs lists them), incrementally. Then merges the groups' JSON reports into
 * reports/mutation/mutation.json (Stryker's mutation-testing-report schema) and prints the score of
 * each file; fails when a file scores under 90 %.
 *
 * StrykerJS 10 needs Node 22 or later; the service itself runs on Node 20, so the Node that runs
 * Stryker may be another one: MUTATION_NODE=/path/to/node, or the `node` first on PATH. StrykerJS is
 * not among the project's devDependencies (their `npm ci` runs on Node 20, where StrykerJS and its
 * Babel only warn): it is installed here, on demand, into scripts/mutation-tools (its own package.json and
 * lock), by npm running on that Node. It finds vitest in the project's node_modules.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import GROUPS from './mutation-groups.json' with { type: 'json' };

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORTS = join(ROOT, 'reports', 'mutation');
const MINIMUM_SCORE = 90;

const node = process.env.MUTATION_NODE ?? 'node';
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
const major = Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
if (major < 22) {
  console.error(
    `StrykerJS 10 needs Node 22 or later; "${node}" is ${version || 'missing'}. ` +
      'Put a newer node first on PATH or set MUTATION_NODE.',
  );
  process.exit(2);
}

// `--force`: test every mutant again, not only those of changed code or tests. Needed after a test
// that kills a static mutant was added: the incremental file keeps a static survivor otherwise.
const force = process.argv.includes('--force');
const requested = process.argv.slice(2).filter((arg) => arg !== '--force');
const unknown = requested.filter((name) => !(name in GROUPS));
if (unknown.length > 0) {
  console.error(`Unknown group(s) ${unknown.join(', ')}; the groups: ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
const groups = requested.length > 0 ? requested : Object.keys(GROUPS);
const TOOLS = join(ROOT, 'scripts', 'mutation-tools');
const stryker = join(TOOLS, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');

// The lock is the tools' own; npm ci again only when it changed since the last install.
const installedLock = join(TOOLS, 'node_modules', '.package-lock.json');
const lock = readFileSync(join(TOOLS, 'package-lock.json'), 'utf8');
if (
  !existsSync(stryker) ||
  !existsSync(installedLock) ||
  !sameVersions(lock, readFileSync(installedLock, 'utf8'))
) {
  const npm = process.env.npm_execpath;
  if (!npm) {
    console.error(
      'Run it as `npm run test:mutation`: npm installs StrykerJS into scripts/mutation-tools first.',
    );
    process.exit(2);
  }
  console.log(`== installing StrykerJS into scripts/mutation-tools (Node ${version})`);
  const install = spawnSync(node, [npm, 'ci', '--no-audit', '--no-fund'], { cwd: TOOLS, stdio: 'inherit' });
  if (install.status !== 0) {
    console.error(`npm ci in scripts/mutation-tools failed (exit ${install.status ?? install.signal})`);
    process.exit(1);
  }
}

/** Whether the installed packages are the locked ones (npm's own record of what it installed). */
function sameVersions(wanted, installed) {
  const versions = (text) =>
    Object.entries(JSON.parse(text).packages ?? {})
      .filter(([path]) => path !== '')
      .map(([path, entry]) => `${path}@${entry.version}`)
      .sort()
      .join('\n');
  return versions(wanted) === versions(installed);
}

for (const group of groups) {
  console.log(`\n== mutation group ${group}: ${GROUPS[group].mutate.join(', ')}`);
  const started = process.hrtime.bigint();
  const run = spawnSync(node, [stryker, 'run', 'stryker.config.mjs', ...(force ? ['--force'] : [])], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_GROUP: group },
  });
  const minutes = Number(process.hrtime.bigint() - started) / 60e9;
  console.log(`== group ${group} took ${minutes.toFixed(1)} min`);
  if (run.status !== 0) {
    console.error(`Stryker failed on group ${group} (exit ${run.status ?? run.signal})`);
    process.exit(1);
  }
}

/** Every group's latest report, merged: each file is mutated by exactly one group. */
const merged = { schemaVersion: '2', thresholds: { high: 95, low: MINIMUM_SCORE }, files: {}, testFiles: {} };
for (const group of Object.keys(GROUPS)) {
  const path = join(REPORTS, 'groups', `${group}.json`);
  if (!existsSync(path)) continue;
  const report = JSON.parse(readFileSync(path, 'utf8'));
  merged.schemaVersion = report.schemaVersion;
  merged.projectRoot = report.projectRoot;
  Object.assign(merged.files, report.files);
  Object.assign(merged.testFiles, report.testFiles ?? {});
}
mkdirSync(REPORTS, { recursive: true });
writeFileSync(join(REPORTS, 'mutation.json'), JSON.stringify(merged));

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
let failing = 0;
console.log('\nfile                                                   score  killed  undetected');
for (const [file, { mutants }] of Object.entries(merged.files).sort()) {
  const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length;
  const undetected = mutants.filter((mutant) => UNDETECTED.has(mutant.status)).length;
  const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
  if (score < MINIMUM_SCORE) failing += 1;
  console.log(
    `${file.padEnd(54)} ${score.toFixed(1).padStart(5)}  ${String(detected).padStart(6)}  ${String(undetected).padStart(10)}${score < MINIMUM_SCORE ? '  < 90' : ''}`,
  );
}
console.log(`\nreport: ${join('reports', 'mutation', 'mutation.json')}`);
process.exit(failing > 0 ? 1 : 0);
