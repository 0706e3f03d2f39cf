/**
 * `npm run bench`: builds, then benchmarks the real service (see docs/performance.md). Progress goes
 * to stderr; one JSON object goes to stdout and to BENCH_OUTPUT (default bench-results/latest.json).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { format } from 'node:util';
import { projectRoot } from '../src/boot/project-root.js';
import { benchOptionsFromEnv } from './bench/options.js';
import { runBench } from './bench/run.js';

// Stdout carries the one JSON object: anything a library prints there goes to stderr instead.
console.log =
  console.info =
  console.debug =
    (...args: unknown[]) => {
      process.stderr.write(`${format(...args)}\n`);
    };

const root = projectRoot();
const options = benchOptionsFromEnv(process.env);
const log = (message: string) => process.stderr.write(`${message}\n`);

try {
  const report = await runBench(root, options, log);
  const json = JSON.stringify(report, null, 2);
  if (options.output !== '-') {
    const path = resolve(root, options.output);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${json}\n`);
    log(`written to ${path}`);
  }
  process.stdout.write(`${json}\n`);
  process.exit(0);
} catch (error) {
  log(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
