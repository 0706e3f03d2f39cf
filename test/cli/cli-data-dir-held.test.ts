/**
 * The embedded database serves one process at a time. With the service running on DATA_DIR (a
 * real child process), a second service refuses to start there; once it stops, the folder is
 * free. A holder that does not answer on the administration socket (cli-running-service.test.ts
 * shows the one that does) leaves the command refused, saying why and how to proceed, writing
 * nothing. A lock left by a killed service is taken over.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/adapters/sql/data-dir-lock.js';
import { PgliteSqlClient } from '../../src/adapters/sql/pglite-sql-client.js';
import { SOCKET_FILE } from '../../src/cli/admin-socket-protocol.js';
import { type ChildService, startService } from '../faults/support/child-service.js';
import { TestClient } from '../support/test-server.js';
import { CLI_TEST_TIMEOUT_MS, type CliTarget, openCliTarget, runGatehouse } from './cli-support.js';

const PASSWORD = 'a long enough passphrase 7';

describe('a DATA_DIR the running service holds [pglite]', () => {
  let target: CliTarget;
  let dataDir: string;
  let service: ChildService | undefined;

  beforeAll(async () => {
    target = await openCliTarget('pglite');
    dataDir = target.env.DATA_DIR!;
  });
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await target?.close();
  });

  const addUser = (username: string) =>
    runGatehouse(['user', 'add', username, '--level', '16', '--password-stdin'], {
      env: target.env,
      input: `${PASSWORD}\n`,
    });
  const userExists = (username: string) =>
    target.withStore(async (store) => (await store.users.findByUsername(username)) !== null);

  it(
    'a second service refuses to start on a DATA_DIR the service holds; stopped, the service gives it up',
    async () => {
      service = await startService({ DATA_DIR: dataDir });
      await expect(startService({ DATA_DIR: dataDir })).rejects.toThrow(
        new RegExp(
          `Gatehouse failed to start: DATA_DIR ${dataDir} is held by the Gatehouse service \\(pid ${service.pid}, `,
        ),
      );
      // The first one still serves.
      expect((await new TestClient(service.url).get('/readyz')).status).toBe(200);
      await service.stop();
      service = undefined;
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      const added = await addUser('ann');
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(await userExists('ann')).toBe(true);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'gatehouse user add refuses when the holder does not answer on the administration socket, exit 1, nothing written',
    async () => {
      // Held by a process with no socket (as a service of an earlier version): this test's own.
      const held = await PgliteSqlClient.open(dataDir);
      try {
        const added = await addUser('cy');
        expect(added.code).toBe(1);
        expect(added.stdout).toBe('');
        expect(added.stderr).toMatch(
          new RegExp(
            `^error DATA_DIR_IN_USE: DATA_DIR ${dataDir} is held by the Gatehouse service \\(pid ${process.pid}, .*\\), ` +
              `which does not answer on its administration socket ${join(dataDir, SOCKET_FILE)} \\(ENOENT\\)\\. `,
          ),
        );
        expect(added.stderr).toContain('Stop the service, then run this again');
        expect(added.stderr).toContain('DATABASE_URL');
      } finally {
        await held.close();
      }
      expect(await userExists('cy')).toBe(false);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'takes over the lock a killed service left behind',
    async () => {
      service = await startService({ DATA_DIR: dataDir });
      const killed = service.pid;
      await service.stop('SIGKILL');
      service = undefined;
      const left = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
      expect(left.pid).toBe(killed);

      const added = await addUser('bo');
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      expect(await userExists('bo')).toBe(true);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
