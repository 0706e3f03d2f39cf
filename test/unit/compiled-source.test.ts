import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';
import { childEntry, compileSourceForChildren } from '../support/compiled-source.js';

const ROOT = projectRoot();
const run = promisify(execFile);

function sourceFiles(): string[] {
  return readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.c?ts$/.test(entry.name))
    .map((entry) => relative(join(ROOT, 'src'), join(entry.parentPath, entry.name)));
}

describe("the run's compiled copy of the source, for child processes", () => {
  it('holds a module for every source file, the CommonJS entry, and the files the code reads', async () => {
    const compiled = await compileSourceForChildren(ROOT);
    try {
      const missing = sourceFiles()
        .map((file) => file.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js'))
        .filter((file) => !existsSync(join(compiled.dir, 'src', file)));
      expect(missing).toEqual([]);
      expect(existsSync(join(compiled.dir, 'src/start.cjs'))).toBe(true);
      expect(existsSync(join(compiled.dir, 'src/adapters/password/common-passwords.txt'))).toBe(true);
    } finally {
      compiled.remove();
    }
    expect(existsSync(compiled.dir)).toBe(false);
  });

  it('runs the command as tsx runs the source: the same output', async () => {
    const compiled = await compileSourceForChildren(ROOT);
    try {
      const env = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' };
      const fromCopy = await run(process.execPath, [join(compiled.dir, 'src/cli/main.js'), 'help'], { env });
      const throughTsx = await run(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'help'],
        { env, cwd: ROOT },
      );
      expect(fromCopy.stdout).toMatch(/^Usage: gatehouse <command>/);
      expect(fromCopy.stdout).toBe(throughTsx.stdout);
    } finally {
      compiled.remove();
    }
  });

  it("starts children from the run's copy that the global setup made", () => {
    const [entry, ...rest] = childEntry(ROOT, 'cli/main.ts');
    expect(rest).toEqual([]);
    expect(entry).toMatch(/[/\\]\.test-build[/\\]run-[^/\\]+[/\\]src[/\\]cli[/\\]main\.js$/);
    expect(existsSync(entry!)).toBe(true);
    expect(childEntry(ROOT, 'start.cts')[0]).toMatch(/[/\\]src[/\\]start\.cjs$/);
  });

  it('removes the copies of runs that ended without their teardown, once a day old', async () => {
    const left = join(ROOT, '.test-build', 'run-left-by-a-killed-run');
    mkdirSync(left, { recursive: true });
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(left, twoDaysAgo, twoDaysAgo);
    const compiled = await compileSourceForChildren(ROOT);
    compiled.remove();
    expect(existsSync(left)).toBe(false);
  });
});
