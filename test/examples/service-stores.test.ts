/**
 * The testing kit's service suite (`serviceStoreContract`) against the real service and the real
 * `gatehouse` command, both compiled (dist/), as an adopter runs them:
 * - the worked example store (docs/stores.md), named by SESSION_STORE_MODULE, under
 *   `gatehouse serve`: its outages, thrown with the testing kit's own copy of DomainError, are 503
 *   with Retry-After, and the commands end the sessions the service made;
 * - the same store under `npm start`'s entry (dist/src/start.cjs), holding the service's sessions;
 * - the memory store under `npm start`'s entry, where the commands refuse;
 * - a command whose store module does not open, or is missing: it fails, naming the variable.
 * The example's database is a folder of files both processes share; the module is TypeScript,
 * loaded through tsx (NODE_OPTIONS), as a team's compiled module would be loaded without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, serviceStoreContract } from '../../src/testing/stores.js';
import { type CliTarget, openCliTarget, ROOT, runGatehouse } from '../cli/cli-support.js';
import { buildCopyOfCheckout } from '../support/built-copy.js';
import { pgEnabled } from '../support/databases.js';
import { dieWithTestProcess, killGroup } from '../support/reaper.js';
import { freePort } from '../support/redis-server.js';
import { OUTAGE_FILE } from './file-key-value.js';

/**
 * The service as installed: a copy of the checkout's runnable parts, built there, so no other test
 * file's build of the checkout's dist/ rewrites a file these processes are loading. The processes
 * run from the checkout (their working directory), where SESSION_STORE_MODULE's path points.
 */
const BUILD = mkdtempSync(join(tmpdir(), 'gatehouse-service-stores-'));
const BIN = join(BUILD, 'bin/gatehouse.js');
const USER = { username: 'store-ann', password: 'a long and private passphrase' };

beforeAll(async () => {
  await buildCopyOfCheckout(BUILD);
}, 180_000);
afterAll(() => rmSync(BUILD, { recursive: true, force: true }));

/** Imports the suite's user with the command (imported passwords need no change at first login). */
async function importUser(env: Record<string, string>, folder: string): Promise<void> {
  const file = join(folder, 'users.jsonl');
  await writeFile(file, `${JSON.stringify({ kind: 'user', user_level: 16, ...USER })}\n`);
  const result = await runGatehouse(['import', file], { env, bin: BIN });
  expect(result).toMatchObject({
    code: 0,
    stdout: `imported ${file}: 0 tenants, 0 backends, 0 groups, 1 user\n`,
  });
}

interface Started {
  child: ChildProcess;
  stdout: () => string;
}

/** Starts `argv` (its own process group) and waits until /readyz answers 200. */
async function serve(argv: string[], env: Record<string, string>, port: number): Promise<Started> {
  const child = dieWithTestProcess(
    spawn(process.execPath, argv, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }),
    { group: true },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (!exited) {
    const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return { child, stdout: () => stdout };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the service exited: ${stderr}`);
}

function stop(started: Started | undefined): Promise<void> {
  if (!started?.child.pid || started.child.exitCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  started.child.kill('SIGTERM');
  const timer = setTimeout(() => killGroup(started.child), 15_000);
  return exited.finally(() => clearTimeout(timer));
}

describe.skipIf(!pgEnabled)('the worked example store, named by SESSION_STORE_MODULE [postgres]', () => {
  let target: CliTarget;
  let folder: string;
  let env: Record<string, string>;
  let service: Started | undefined;

  serviceStoreContract({
    name: 'docs/stores.md example (gatehouse serve)',
    sessionStore: 'module',
    commands: 'reach',
    readiness: true,
    async start(): Promise<ServiceUnderTest> {
      target = await openCliTarget('postgres');
      folder = await mkdtemp(join(tmpdir(), 'gatehouse-kv-'));
      env = {
        ...target.env,
        SESSION_STORE_MODULE: './test/examples/key-value-store-module.ts',
        KEY_VALUE_DIR: join(folder, 'kv'),
        NODE_OPTIONS: '--import tsx',
        COOKIE_SECURE: 'false',
        BOOTSTRAP_ADMIN: 'false',
        LOG_LEVEL: 'warn',
      };
      await importUser(env, folder);
      const port = await freePort();
      service = await serve([BIN, 'serve'], env, port);
      return {
        url: `http://127.0.0.1:${port}`,
        user: USER,
        gatehouse: (args, input) => runGatehouse([...args], { env, bin: BIN, ...(input ? { input } : {}) }),
        close: async () => {
          await stop(service);
          await target.close();
          await rm(folder, { recursive: true, force: true });
        },
      };
    },
    outage: {
      begin: () => writeFile(join(folder, 'kv', OUTAGE_FILE), ''),
      end: () => rm(join(folder, 'kv', OUTAGE_FILE), { force: true }),
    },
  });
});

/** `npm start`: its node flags and entry, as package.json has them. */
function npmStartArgv(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const argv = manifest.scripts.start.split(/\s+/).slice(1);
  return [...argv.slice(0, -1), join(BUILD, argv.at(-1)!)];
}

describe('the worked example store, named by SESSION_STORE_MODULE, under `npm start` [pglite]', () => {
  let folder: string;
  let service: Started | undefined;
  let port: number;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gatehouse-kv-start-'));
    const env = {
      DATA_DIR: join(folder, 'data'),
      SESSION_STORE_MODULE: './test/examples/key-value-store-module.ts',
      KEY_VALUE_DIR: join(folder, 'kv'),
      NODE_OPTIONS: '--import tsx',
      COOKIE_SECURE: 'false',
      BOOTSTRAP_ADMIN: 'false',
      LOG_LEVEL: 'info',
    };
    await importUser(env, folder);
    port = await freePort();
    service = await serve(npmStartArgv(), env, port);
  }, 120_000);
  afterAll(async () => {
    await stop(service);
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('keeps the sessions the service makes in the store of the module, and says so', async () => {
    const keys = () => readdir(join(folder, 'kv', 'keys')).catch(() => []);
    expect(await keys()).toEqual([]);
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(USER),
    });
    expect(login.status).toBe(200);
    // The session, its user's index and the throttle budget: all in the key/value database.
    expect((await keys()).length).toBeGreaterThanOrEqual(2);
    const started = (service?.stdout() ?? '')
      .split('\n')
      .filter((line) => line.includes('Gatehouse listening'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(started).toEqual([
      expect.objectContaining({
        session_store: 'module',
        session_store_module: './test/examples/key-value-store-module.ts',
      }),
    ]);
  });
});

describe('the memory store under `npm start`', () => {
  let folder: string;
  let service: Started | undefined;

  afterAll(async () => {
    await stop(service);
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  serviceStoreContract({
    name: 'memory (npm start)',
    sessionStore: 'memory',
    // On the embedded database the command asks the running service, which holds the sessions in
    // its own memory: the commands reach them.
    commands: 'reach',
    readiness: false,
    async start(): Promise<ServiceUnderTest> {
      folder = await mkdtemp(join(tmpdir(), 'gatehouse-memory-'));
      const env = {
        SESSION_STORE: 'memory',
        DATA_DIR: join(folder, 'data'),
        COOKIE_SECURE: 'false',
        BOOTSTRAP_ADMIN: 'false',
        LOG_LEVEL: 'warn',
      };
      // The embedded database serves one process: the user is imported before the service starts.
      await importUser(env, folder);
      const port = await freePort();
      service = await serve(npmStartArgv(), env, port);
      return {
        url: `http://127.0.0.1:${port}`,
        user: USER,
        gatehouse: (args, input) => runGatehouse([...args], { env, bin: BIN, ...(input ? { input } : {}) }),
      };
    },
  });

  it('warns at start-up, in one line, that its sessions are lost on restart and not shared', () => {
    const warnings = (service?.stdout() ?? '')
      .split('\n')
      .filter((line) => line.includes('"session_store_memory"'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe(40);
    expect(warnings[0]!.msg).toMatch(/lost on restart and not shared between instances/);
  });
});

describe.skipIf(!pgEnabled)(
  'a `gatehouse` command whose SESSION_STORE_MODULE cannot serve [postgres]',
  () => {
    let target: CliTarget;
    let folder: string;

    beforeAll(async () => {
      target = await openCliTarget('postgres');
      folder = await mkdtemp(join(tmpdir(), 'gatehouse-bad-module-'));
      await writeFile(
        join(folder, 'down.mjs'),
        "export default async () => { throw new Error('connect ECONNREFUSED 10.0.0.9:8000'); };\n",
      );
    }, 60_000);
    afterAll(async () => {
      await target?.close();
      if (folder) await rm(folder, { recursive: true, force: true });
    });

    it('fails loudly, naming the variable, when the store does not open or the module is missing', async () => {
      const args = ['sessions', 'revoke', '--user', 'store-ann'];
      const down = await runGatehouse(args, {
        env: { ...target.env, SESSION_STORE_MODULE: join(folder, 'down.mjs') },
        bin: BIN,
      });
      expect(down).toEqual({
        code: 1,
        stdout: '',
        stderr: `error SERVICE_UNAVAILABLE: The session store of SESSION_STORE_MODULE "${join(folder, 'down.mjs')}" did not open. (connect ECONNREFUSED 10.0.0.9:8000)\n`,
      });
      const missing = await runGatehouse(args, {
        env: { ...target.env, SESSION_STORE_MODULE: './no/such/store.mjs' },
        bin: BIN,
      });
      expect(missing).toMatchObject({ code: 2, stdout: '' });
      expect(missing.stderr).toMatch(
        /^error CONFIG: SESSION_STORE_MODULE "\.\/no\/such\/store\.mjs": cannot be loaded \(/,
      );
    });
  },
);
