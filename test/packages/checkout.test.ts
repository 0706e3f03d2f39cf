/**
 * The `gatehouse` command from a checkout, as docs/operations.md tells an adopter to run it, in a
 * folder whose path holds a space and an accent:
 * - `npm run gatehouse -- help` compiles once, then only when a source is newer than dist/;
 * - `gatehouse serve` starts the service there (the entry's path was passed on percent-encoded),
 *   takes `npm run gatehouse` commands on its embedded database (through its socket in DATA_DIR),
 *   and stops it on SIGTERM, exiting after it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';
import { dieWithTestProcess, killGroup } from '../support/reaper.js';
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
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let port = 0;
  /** The status of `/readyz`, 0 when nothing answers on the port. */
  const readyz = () =>
    fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.status,
      () => 0,
    );

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
    // A test that failed before stopping the service: the wrapper's whole process group, which
    // lives on while the service does, even if the wrapper is gone.
    killGroup(service);
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
    port = await freePort();
    // The wrapper leads a process group of its own (its service is in it): killed whole if need be.
    service = dieWithTestProcess(
      spawn(process.execPath, [join(checkout, 'bin/gatehouse.js'), 'serve'], {
        cwd: checkout,
        env: { ...env, PORT: String(port), BOOTSTRAP_ADMIN: 'false', COOKIE_SECURE: 'false' },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      }),
      { group: true },
    );
    let stderr = '';
    service.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const wrapper = service;
    exited = new Promise((resolve) => wrapper.once('exit', (code, signal) => resolve({ code, signal })));
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    const ready = (async () => {
      while (!gone) {
        if ((await readyz()) === 200) return 200;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const outcome = await Promise.race([ready, exited.then((exit) => `exited ${exit.code}: ${stderr}`)]);
    expect(outcome).toBe(200);
  }, 120_000);

  it("takes the README's commands while it serves on the embedded database: `npm run gatehouse` asks it", async () => {
    const tenant = await npmGatehouse('tenant', 'add', 't1');
    expect(tenant).toEqual({ stdout: 'added tenant "t1"\n', stderr: '' });
    const group = await npmGatehouse('group', 'add', 'g1', '--tenant', 't1');
    expect(group.stdout).toBe('added group "g1" to tenant "t1"\n');
    // Each may compile first: the first test left a source dated in the future.
  }, 180_000);

  it('stops as a user stops it: on SIGTERM the service exits, then the wrapper', async () => {
    service!.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    // The wrapper exits once it has seen its service exit: nothing of its process group is left.
    expect(() => process.kill(-service!.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(await readyz()).toBe(0);
  }, 60_000);
});
