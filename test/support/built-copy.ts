/**
 * A copy of the checkout's runnable parts (bin, src, migrations, the manifests), compiled there as
 * `npm run build` compiles them, for the tests that run the built command or service. The copy is
 * the test file's own: the benchmark smoke builds the checkout's dist/ when it is stale and then
 * runs services from it for minutes, and a second build of that same folder by another file,
 * running beside it, would rewrite modules those services are loading.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../src/boot/project-root.js';

const ROOT = projectRoot();

/** Fills `dir` (empty) with the copy and its dist/; node_modules is the checkout's, linked. */
export async function buildCopyOfCheckout(dir: string): Promise<void> {
  for (const path of ['bin', 'src', 'migrations', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // A type error elsewhere still emits dist/, which is all these tests need: only a missing
  // entry point fails them.
  const build = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: dir },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  for (const entry of ['dist/src/start.cjs', 'dist/src/cli/main.js'])
    if (!existsSync(join(dir, entry))) throw new Error(`the build did not emit ${entry}:\n${build.stdout}`);
}
