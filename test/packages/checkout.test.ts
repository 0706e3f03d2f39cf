/**
 * The `gatehouse` command from a checkout, as docs/operations.md tells an adopter to run it, in a
 * folder whose path holds a space and an accent:
 * - `npm run gatehouse -- help` compiles once, then only when a source is newer than dist/;
 * - `gatehouse serve` starts the service there (the entry's path was passed on percent-encoded).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/project-root.js';
import { freePort } from '../support/redis-server.js';

const run = promisify(execFile);
const ROOT = projectRoot();

describe('a checkout under a path with a space and an accent', () => {
  const parent = mkdtempSync(join(tmpdir(), 'gatehouse-'));
  const checkout = join(parent, 'gh dir é', 'gatehouse');
  const entry = join(checkout, 'dist/src/cli/main.js');
  const env = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', DATA_DIR: join(checkout, 'data') };
  const npmGatehouse = (...args: string[]) =>
    run('npm', ['run', '--silent', 'gatehouse', '--', ...args], { cwd: checkout, env });
  let service: ChildProcess | undefined;

  beforeAll(() => {
    mkdirSync(checkout, { recursive: true });
    for (const path of [
      'bin',
      'src',
      'migrations',
      'scripts/build-if-stale.mjs',
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ])
      cpSync(join(ROOT, path), join(checkout, path), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  });

  afterAll(() => {
    service?.kill('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  it('builds on the first `npm run gatehouse`, then only when a source changed', async () => {
    const first = await npmGatehouse('help');
    expect(first.stdout).toContain('Usage: gatehouse');
    const built = statSync(entry).mtimeMs;

    const again = await npmGatehouse('help');
    expect(again.stdout).toBe(first.stdout);
    expect(statSync(entry).mtimeMs).toBe(built);

    // A source newer than the build: compiled again before the command runs.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(checkout, 'src/cli/usage.ts'), later, later);
    await npmGatehouse('help');
    expect(statSync(entry).mtimeMs).toBeGreaterThan(built);
  }, 180_000);

  it('serves from there: `gatehouse serve` is ready', async () => {
    const port = await freePort();
    service = spawn(process.execPath, [join(checkout, 'bin/gatehouse.js'), 'serve'], {
      cwd: checkout,
      env: { ...env, PORT: String(port), BOOTSTRAP_ADMIN: 'false', COOKIE_SECURE: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    service.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => service?.once('exit', resolve));
    const ready = (async () => {
      for (;;) {
        const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200) return status;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const outcome = await Promise.race([ready, exited.then((code) => `exited ${code}: ${stderr}`)]);
    expect(outcome).toBe(200);
  }, 120_000);
});
