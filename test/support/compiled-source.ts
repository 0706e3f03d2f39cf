/**
 * The service's source, compiled once per test run for the tests' child processes (the
 * `gatehouse` command, the service under the fault tests).
 *
 * Why: a child started as `node --import tsx src/...` compiles nothing twice (tsx keeps its
 * output on disk), but tsx's loader hooks still see each of the service's ~300 modules on every
 * start, off the main thread and through messages: about a second of CPU per process here, on
 * suites that start several hundred. So the run's global setup compiles `src/` once with esbuild,
 * the compiler tsx itself runs, into `.test-build/<run>/src` (the same depth below the project
 * folder as `dist/src`, so `projectRoot()` and the files read beside the code resolve alike), and
 * the children start from there: the JavaScript tsx would have made, without the hooks.
 *
 * Without the global setup (a single file run through another config), `childEntry` falls back to
 * tsx on the TypeScript source.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { inject } from 'vitest';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from './global-setup.js';
import { removeStaleEntries } from './stale-entries.js';

/** Files beside the code that the code reads at run time (not TypeScript, not a package's manifest). */
function isRuntimeData(file: string): boolean {
  return extname(file) === '.txt';
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Compiles `<root>/src` into a folder of this run's own and returns that folder (its `src/` is the
 * compiled tree). Folders that runs killed before their teardown are removed after a day.
 */
export async function compileSourceForChildren(root: string): Promise<{ dir: string; remove(): void }> {
  const { build } = await import('esbuild');
  const parent = join(root, '.test-build');
  mkdirSync(parent, { recursive: true });
  removeStaleEntries(parent, () => true);
  const dir = join(parent, `run-${process.pid}-${Date.now()}`);
  const common = {
    absWorkingDir: root,
    outbase: 'src',
    outdir: join(dir, 'src'),
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'silent',
    tsconfig: join(root, 'tsconfig.json'),
  } as const;
  await Promise.all([
    build({ ...common, entryPoints: ['src/**/*.ts'], format: 'esm' }),
    // The process entry is CommonJS (src/start.cts), as tsc emits it: start.cjs.
    build({ ...common, entryPoints: ['src/**/*.cts'], format: 'cjs', outExtension: { '.js': '.cjs' } }),
  ]);
  for (const file of filesUnder(join(root, 'src')).filter(isRuntimeData)) {
    const target = join(dir, relative(root, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Node's arguments that run `src/<path>` (a `.ts` or `.cts` file of the source tree) in a child:
 * the run's compiled copy when there is one, the TypeScript through tsx otherwise.
 */
export function childEntry(root: string, sourcePath: string): string[] {
  let compiled: string | undefined;
  try {
    compiled = inject('compiledSourcePath') || undefined;
  } catch {
    compiled = undefined;
  }
  if (!compiled) return ['--import', 'tsx', join(root, 'src', sourcePath)];
  return [join(compiled, 'src', sourcePath.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js'))];
}
