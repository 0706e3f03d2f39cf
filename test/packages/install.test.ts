/**
 * Issue 15: the three packages tested as installed. `npm run pack:all` makes the tarballs; each is
 * installed into a scratch project outside the repository, with only what a user would add:
 * - an interpreter package (the template, test/fixtures/acme-interpreter) runs its contract test
 *   with gatehouse-testing and vitest alone, and the test fails on a planted bug;
 * - the service starts from the gatehouse tarball alone (`gatehouse serve`, PGlite) and is ready;
 * - an Express, a Fastify and a Koa app protected by gatehouse-client answer 200 with the user,
 *   401, 403, and 503 once the service is stopped.
 * Installed sizes are measured and bounded.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/boot/project-root.js';
import {
  interpretationRefusal,
  SsoInterpretationError as ServiceSsoInterpretationError,
} from '../../src/domain/sso/sso-interpretation-error.js';
import { dieWithTestProcess, killGroup } from '../support/reaper.js';
import { freePort } from '../support/redis-server.js';
import { TestClient } from '../support/test-server.js';

const run = promisify(execFile);
/** The npm scope the project owns (contract 9): `gatehouse` on the public registry is someone else's. */
const SCOPE = '@gatehouse-auth';
const ROOT = projectRoot();
const PASSWORD = 'correct horse battery staple';
const OUR_VERSIONS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Bytes of every file below `dir`. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? sizeOf(path) : statSync(path).size;
  }
  return total;
}

const npmInstall = (cwd: string, ...specs: string[]) =>
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  });

describe('the packages, installed from their tarballs', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-install-'));
  const tarball: Record<'gatehouse' | 'testing' | 'client', string> = {
    gatehouse: '',
    testing: '',
    client: '',
  };
  const sizes: Record<string, number> = {};

  beforeAll(async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/pack-all.mjs')], { cwd: ROOT });
    // npm names a scoped package's tarball `<scope>-<name>-<version>.tgz`.
    for (const path of stdout.trim().split('\n')) {
      if (/\/gatehouse-auth-gatehouse-testing-[^/]+\.tgz$/.test(path)) tarball.testing = path;
      else if (/\/gatehouse-auth-gatehouse-client-[^/]+\.tgz$/.test(path)) tarball.client = path;
      else if (/\/gatehouse-auth-gatehouse-[\d.]+\.tgz$/.test(path)) tarball.gatehouse = path;
    }
    for (const [name, path] of Object.entries(tarball)) sizes[`${name}.tgz`] = statSync(path).size;
  }, 180_000);

  afterAll(() => {
    console.info(`[packages] ${JSON.stringify(sizes)}`);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('makes three tarballs; the service tarball holds what runs, not tests or scripts', async () => {
    expect(Object.values(tarball).every(Boolean)).toBe(true);
    const { stdout } = await run('tar', ['-tzf', tarball.gatehouse], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/bin/gatehouse.js');
    expect(files).toContain('package/dist/src/boot/gatehouse.js');
    expect(files.some((file) => file.startsWith('package/migrations/'))).toBe(true);
    expect(files.filter((file) => /^package\/(test|scripts|docs|\.ci)\//.test(file))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    sizes['gatehouse.files'] = files.length;
  });

  /** Every file of a tarball, unpacked below `scratch/unpacked/<name>/package/`. */
  async function unpacked(name: keyof typeof tarball): Promise<{ root: string; files: string[] }> {
    const into = join(scratch, 'unpacked', name);
    mkdirSync(into, { recursive: true });
    await run('tar', ['-xzf', tarball[name], '-C', into]);
    const root = join(into, 'package');
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)));
    return { root, files };
  }

  it('publishes each package under the project’s scope, the command keeping its name', async () => {
    const names: Record<string, string> = {};
    for (const name of ['gatehouse', 'testing', 'client'] as const) {
      const { root } = await unpacked(name);
      names[name] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name;
    }
    expect(names).toEqual({
      gatehouse: `${SCOPE}/gatehouse`,
      testing: `${SCOPE}/gatehouse-testing`,
      client: `${SCOPE}/gatehouse-client`,
    });
    const { root } = await unpacked('gatehouse');
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin).toEqual({
      gatehouse: 'bin/gatehouse.js',
    });
  });

  it('gives each tarball its own README whose relative links stay inside it, and no dangling source-map comment', async () => {
    for (const name of ['gatehouse', 'testing', 'client'] as const) {
      const { root, files } = await unpacked(name);
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      expect(readme, name).toMatch(new RegExp(`^# ${SCOPE}/gatehouse`));
      // Markdown links and images: an absolute URL or an anchor is fine; a path must be shipped.
      for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(?:[a-z]+:|#)/i.test(target!)) continue;
        const path = join(root, target!.split('#')[0]!);
        expect(files, `${name} README links to ${target}`).toContain(relative(root, path));
      }
      for (const file of files.filter((path) => /\.(?:c|m)?js$|\.d\.(?:c|m)?ts$/.test(path))) {
        expect(readFileSync(join(root, file), 'utf8'), `${name}: ${file}`).not.toMatch(
          /[#@] sourceMappingURL=/,
        );
      }
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    }
  });

  describe('an interpreter package with gatehouse-testing', () => {
    const dir = join(scratch, 'acme-interpreter');

    beforeAll(async () => {
      cpSync(join(ROOT, 'test/fixtures/acme-interpreter'), dir, { recursive: true });
      await npmInstall(dir, tarball.testing, `vitest@${OUR_VERSIONS.devDependencies.vitest}`);
    }, 180_000);

    const vitest = () =>
      run(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run'], { cwd: dir }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );

    it('installs none of the service’s dependencies, and stays small', () => {
      const modules = readdirSync(join(dir, 'node_modules'));
      for (const heavy of ['koa', 'fastify', 'pg', '@electric-sql', '@node-rs', 'openid-client', 'ioredis'])
        expect(modules, heavy).not.toContain(heavy);
      expect(readdirSync(join(dir, 'node_modules', SCOPE))).toEqual(['gatehouse-testing']);
      sizes['gatehouse-testing installed'] = sizeOf(join(dir, 'node_modules', SCOPE, 'gatehouse-testing'));
      expect(sizes['gatehouse-testing installed']).toBeLessThan(1024 * 1024);
    });

    it('runs the interpreter’s contract test, and the test catches a planted bug', async () => {
      expect(await vitest()).toBe(0);
      const entry = join(dir, 'index.js');
      const source = readFileSync(entry, 'utf8');
      // The bug: the username is taken from the wrong part of `sub` (the unit id).
      writeFileSync(entry, source.replace('username = fromSub[2]', 'username = fromSub[1]'));
      expect(readFileSync(entry, 'utf8')).not.toBe(source);
      expect(await vitest()).not.toBe(0);
      writeFileSync(entry, source);
    }, 120_000);
  });

  // At run time an interpreter is loaded by the service, where no vitest is installed: it imports
  // SsoInterpretationError from the kit's `/errors` entry, which the service recognises.
  it('lets an interpreter import SsoInterpretationError at run time without vitest, recognised by the service', async () => {
    const dir = join(scratch, 'runtime-interpreter');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'runtime', private: true, type: 'module' }),
    );
    // As a production install would: the optional peer vitest is not installed.
    await npmInstall(dir, tarball.testing);
    expect(readdirSync(join(dir, 'node_modules'))).not.toContain('vitest');
    const load = (specifier: string) =>
      run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`], {
        cwd: dir,
      }).then(
        () => 'loaded',
        (error: { stderr?: string }) => error.stderr ?? 'failed',
      );
    expect(await load(`${SCOPE}/gatehouse-testing/errors`)).toBe('loaded');
    // And a session store, which the service loads too (SESSION_STORE_MODULE).
    expect(await load(`${SCOPE}/gatehouse-testing/store-runtime`)).toBe('loaded');
    expect(await load(`${SCOPE}/gatehouse-testing`)).toMatch(/vitest/);

    const installed = join(dir, 'node_modules', SCOPE, 'gatehouse-testing/dist/testing/errors.js');
    const { SsoInterpretationError } = (await import(pathToFileURL(installed).href)) as {
      SsoInterpretationError: new (code: string, message: string) => Error;
    };
    const refusal = interpretationRefusal(new SsoInterpretationError('SSO_MULTI_GROUPS', 'two units'));
    expect(refusal).toBeInstanceOf(ServiceSsoInterpretationError);
    expect(refusal?.code).toBe('SSO_MULTI_GROUPS');
  }, 120_000);

  describe('the service from its tarball, and apps protected by gatehouse-client', () => {
    const serviceDir = join(scratch, 'service');
    const appsDir = join(scratch, 'apps');
    let service: ChildProcess;
    let serviceUrl: string;
    let apps: ChildProcess;
    const appUrls: Record<string, string> = {};
    const passwords: Record<string, string> = {};
    const ANN_PASSWORD = 'a brand new passphrase 42';
    const gatehouseCommand = (args: string[], input?: string) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [join(serviceDir, 'node_modules', SCOPE, 'gatehouse/bin/gatehouse.js'), ...args],
          {
            cwd: serviceDir,
            env: { PATH: process.env.PATH ?? '', DATA_DIR: join(serviceDir, 'data'), LOG_LEVEL: 'warn' },
            stdio: ['pipe', 'ignore', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString('utf8');
        });
        child.stdin!.end(input ?? '');
        child.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`gatehouse ${args.join(' ')}: ${stderr}`)),
        );
      });

    beforeAll(async () => {
      mkdirSync(serviceDir, { recursive: true });
      writeFileSync(
        join(serviceDir, 'package.json'),
        JSON.stringify({ name: 'service', private: true, type: 'module' }),
      );
      mkdirSync(appsDir, { recursive: true });
      writeFileSync(
        join(appsDir, 'package.json'),
        JSON.stringify({ name: 'apps', private: true, type: 'module' }),
      );
      cpSync(join(ROOT, 'test/fixtures/packages/apps.mjs'), join(appsDir, 'apps.mjs'));
      await Promise.all([
        npmInstall(serviceDir, tarball.gatehouse),
        npmInstall(
          appsDir,
          tarball.client,
          `express@${OUR_VERSIONS.devDependencies.express}`,
          `fastify@${OUR_VERSIONS.dependencies.fastify}`,
          `koa@${OUR_VERSIONS.dependencies.koa}`,
        ),
      ]);
      sizes['gatehouse-client installed'] = sizeOf(join(appsDir, 'node_modules', SCOPE, 'gatehouse-client'));

      // The administration command from the same tarball: a tenant, a group, two users.
      await gatehouseCommand(['migrate']);
      await gatehouseCommand(['tenant', 'add', 't1']);
      await gatehouseCommand(['group', 'add', 'g1', '--tenant', 't1']);
      for (const username of ['ann', 'fresh'])
        await gatehouseCommand(
          ['user', 'add', username, '--level', '0', '--tenant', 't1', '--group', 'g1', '--password-stdin'],
          `${PASSWORD}\n`,
        );
      await gatehouseCommand(['user', 'expire', 'fresh']);
      passwords.fresh = PASSWORD;

      const port = await freePort();
      serviceUrl = `http://127.0.0.1:${port}`;
      // The wrapper leads a process group of its own (its service is in it): killed whole if need be.
      service = dieWithTestProcess(
        spawn(
          process.execPath,
          [join(serviceDir, 'node_modules', SCOPE, 'gatehouse/bin/gatehouse.js'), 'serve'],
          {
            cwd: serviceDir,
            env: {
              PATH: process.env.PATH ?? '',
              DATA_DIR: join(serviceDir, 'data'),
              PORT: String(port),
              LOG_LEVEL: 'warn',
              BOOTSTRAP_ADMIN: 'false',
              COOKIE_SECURE: 'false',
            },
            stdio: 'ignore',
            detached: true,
          },
        ),
        { group: true },
      );
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ready = await fetch(`${serviceUrl}/readyz`).then(
          (response) => response.status,
          () => 0,
        );
        if (ready === 200) break;
        if (Date.now() > deadline) throw new Error('the installed service was not ready');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      // A password set by an administrator must be changed at the first login: ann does so.
      const ann = new TestClient(serviceUrl);
      expect((await ann.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      const change = await ann.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: ANN_PASSWORD,
      });
      expect(change.status).toBe(200);
      passwords.ann = ANN_PASSWORD;

      apps = dieWithTestProcess(
        spawn(process.execPath, [join(appsDir, 'apps.mjs')], {
          cwd: appsDir,
          env: { PATH: process.env.PATH ?? '', GATEHOUSE_URL: serviceUrl },
          stdio: ['ignore', 'pipe', 'ignore'],
        }),
      );
      await new Promise<void>((resolve, reject) => {
        let text = '';
        apps.stdout!.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\n')) {
            Object.assign(appUrls, JSON.parse(text.split('\n')[0]!));
            resolve();
          }
        });
        apps.once('exit', (code) => reject(new Error(`the apps exited with ${code}`)));
      });
    }, 240_000);

    afterAll(() => {
      apps?.kill('SIGKILL');
      killGroup(service);
    });

    it('keeps gatehouse-client small', () => {
      expect(sizes['gatehouse-client installed']).toBeLessThan(100 * 1024);
    });

    async function cookieOf(username: string): Promise<string> {
      const client = new TestClient(serviceUrl);
      const password = passwords[username] ?? PASSWORD;
      expect((await client.post('/api/v1/login/', { username, password })).status).toBe(200);
      return `sessionid=${client.session}`;
    }

    it('protects an Express, a Fastify and a Koa app: 200 with the user, 401, 403', async () => {
      const ann = await cookieOf('ann');
      const fresh = await cookieOf('fresh');
      for (const [framework, url] of Object.entries(appUrls)) {
        const live = await new TestClient(url).get('/me', { cookie: ann });
        expect(live.status, framework).toBe(200);
        expect(live.body.username, framework).toBe('ann');
        expect(live.body.tenantId, framework).toBe('t1');
        expect((await new TestClient(url).get('/me')).body.code, framework).toBe('NOT_AUTHENTICATED');
        const expired = await new TestClient(url).get('/me', { cookie: fresh });
        expect([expired.status, expired.body.code], framework).toEqual([403, 'PASSWORD_EXPIRED']);
      }
    });

    it('answers 503 with Retry-After once the service is stopped', async () => {
      const ann = await cookieOf('ann');
      await new Promise<void>((resolve) => {
        service.once('exit', () => resolve());
        service.kill('SIGTERM');
      });
      for (const [framework, url] of Object.entries(appUrls)) {
        const response = await new TestClient(url).get('/me', { cookie: ann });
        expect([response.status, response.body.code], framework).toEqual([503, 'SERVICE_UNAVAILABLE']);
        expect(response.headers.get('retry-after'), framework).toBe('5');
      }
    });
  });
});
