/**
 * The README's path on the default database: the service runs on the embedded database (a real
 * child process holding DATA_DIR) and the `gatehouse` command, finding DATA_DIR held, has the
 * service run it through the administration socket in DATA_DIR. What it writes is what the
 * service then serves; what the service cannot take is refused with a clear error, writing nothing.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/adapters/sql/data-dir-lock.js';
import { MAX_REQUEST_BYTES, SOCKET_FILE } from '../../src/cli/admin-socket-protocol.js';
import { type ChildService, startService } from '../faults/support/child-service.js';
import { TestClient } from '../support/test-server.js';
import { CLI_TEST_TIMEOUT_MS, type CliTarget, openCliTarget, runGatehouse } from './cli-support.js';

const PASSWORD = 'a long enough passphrase 7';
const NEW_PASSWORD = 'another long passphrase 8';

/** Sends raw bytes to the socket as a caller would; gives everything the service answers. */
function exchangeRaw(path: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path, allowHalfOpen: true });
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.end(bytes);
  });
}

describe('the gatehouse command while the service runs on the embedded database [pglite]', () => {
  let target: CliTarget;
  let dataDir: string;
  let service: ChildService | undefined;
  let scratch: string;
  const gatehouse = (args: string[], input?: string) =>
    runGatehouse(args, { env: target.env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    target = await openCliTarget('pglite');
    dataDir = target.env.DATA_DIR!;
    scratch = await mkdtemp(join(tmpdir(), 'gatehouse-running-'));
    service = await startService({ DATA_DIR: dataDir });
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await target?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it(
    'tenant, group and user add (password on standard input) run in the service, and the user logs in through it',
    async () => {
      // Only the service's own user may reach the socket.
      expect(statSync(join(dataDir, SOCKET_FILE)).mode & 0o777).toBe(0o600);

      expect(await gatehouse(['tenant', 'add', 't1'])).toEqual({
        code: 0,
        stdout: 'added tenant "t1"\n',
        stderr: '',
      });
      expect(await gatehouse(['group', 'add', 'g1', '--tenant', 't1'])).toMatchObject({
        code: 0,
        stderr: '',
      });
      const added = await gatehouse(
        ['user', 'add', 'ann', '--level', '0', '--tenant', 't1', '--group', 'g1', '--password-stdin'],
        `${PASSWORD}\n`,
      );
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(/^added user "ann": user_id "[0-9a-f]+", end user \(level 0\)/);

      const client = new TestClient(service!.url);
      const login = await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.body).toMatchObject({
        ids: { tenant_id: 't1', group_id: 'g1' },
        profile: { username: 'ann', is_expired: true },
      });

      // The service's sessions are within the command's reach: a new password ends hers.
      const reset = await gatehouse(['user', 'set-password', 'ann', '--password-stdin'], `${NEW_PASSWORD}\n`);
      expect(reset).toMatchObject({ code: 0, stderr: '' });
      expect(reset.stdout).toContain('ended 1 session');
      expect((await client.get('/api/v1/session/')).status).toBe(401);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: NEW_PASSWORD })).status).toBe(
        200,
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "answers with the service's refusal and exit status, and refuses a usage error before asking it",
    async () => {
      const again = await gatehouse(['tenant', 'add', 't1']);
      expect(again).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error CONFLICT: id: tenant "t1" already exists\n',
      });
      const usage = await gatehouse(['group', 'add', 'g2']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/^error USAGE: --tenant is required\n/);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'a command too large for the service is refused with a clear error, exit 1, and nothing is written',
    async () => {
      const file = join(scratch, 'big.jsonl');
      // One valid line, then blank space past the bound of what the service reads.
      await writeFile(file, `{"kind":"tenant","id":"big"}\n${' '.repeat(MAX_REQUEST_BYTES)}\n`);
      const result = await gatehouse(['import', file]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^error PAYLOAD_TOO_LARGE: the command with its input is \\d+ bytes, more than the running service takes \\(${MAX_REQUEST_BYTES}\\): split the file, or stop the service and run the command again\\n$`,
        ),
      );
      // Nothing of the file was written: the tenant can still be added.
      expect(await gatehouse(['tenant', 'add', 'big'])).toMatchObject({ code: 0, stderr: '' });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'answers a request that is not a command with an error and goes on serving',
    async () => {
      const path = join(dataDir, SOCKET_FILE);
      expect(await exchangeRaw(path, 'not json at all\n')).toBe(
        '{"stderr":"error INVALID_REQUEST: not a gatehouse command request\\n"}\n{"exit":1}\n',
      );
      const missingSecret = await exchangeRaw(
        path,
        JSON.stringify({
          argv: ['user', 'set-password', 'ann', '--password-stdin'],
          secret: null,
          secrets: [],
          file: null,
        }),
      );
      expect(missingSecret).toContain('error USAGE: the input for ann was not sent');
      expect(missingSecret.endsWith('{"exit":2}\n')).toBe(true);
      // A provider's secret lines (--client-secret-stdin, --setting-stdin) travel as their own list.
      const missingLines = await exchangeRaw(
        path,
        JSON.stringify({
          argv: ['provider', 'update', 'acme', '--client-secret-stdin'],
          secret: null,
          secrets: [],
          file: null,
        }),
      );
      expect(missingLines).toContain('error USAGE: 1 secret line(s) were expected, 0 sent');
      expect(missingLines.endsWith('{"exit":2}\n')).toBe(true);
      expect(await gatehouse(['tenant', 'add', 't3'])).toMatchObject({ code: 0, stderr: '' });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'once the service stops, the command opens the database itself and finds what it wrote',
    async () => {
      await service!.stop();
      service = undefined;
      expect(statSync(join(dataDir, SOCKET_FILE), { throwIfNoEntry: false })).toBeUndefined();
      expect(statSync(join(dataDir, LOCK_FILE), { throwIfNoEntry: false })).toBeUndefined();
      const exists = await gatehouse(['tenant', 'add', 't1']);
      expect(exists).toMatchObject({ code: 1, stderr: 'error CONFLICT: id: tenant "t1" already exists\n' });
      expect(
        await target.withStore(async (store) => (await store.users.findByUsername('ann'))?.username),
      ).toBe('ann');
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe('the gatehouse command and sessions kept in the service process (SESSION_STORE=memory) [pglite]', () => {
  let target: CliTarget;
  let service: ChildService | undefined;

  beforeAll(async () => {
    target = await openCliTarget('pglite');
    service = await startService({ DATA_DIR: target.env.DATA_DIR!, SESSION_STORE: 'memory' });
  }, CLI_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await target?.close();
  });

  it(
    'ends the sessions the service keeps in its memory, which a command of its own could not reach',
    async () => {
      const env = { ...target.env, SESSION_STORE: 'memory' };
      const added = await runGatehouse(['user', 'add', 'bo', '--level', '16', '--password-stdin'], {
        env,
        input: `${PASSWORD}\n`,
      });
      expect(added).toMatchObject({ code: 0, stderr: '' });
      const client = new TestClient(service!.url);
      expect((await client.post('/api/v1/login/', { username: 'bo', password: PASSWORD })).status).toBe(200);

      const listed = await runGatehouse(['sessions', 'list', '--user', 'bo'], { env });
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toMatch(/^1 session of "bo"\n/);
      const revoked = await runGatehouse(['sessions', 'revoke', '--user', 'bo'], { env });
      expect(revoked).toEqual({ code: 0, stdout: 'ended 1 session of "bo"\n', stderr: '' });
      expect((await client.get('/api/v1/session/')).status).toBe(401);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
