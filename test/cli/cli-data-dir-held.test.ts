/**
 * The embedded database serves one process at a time. With the service running on DATA_DIR (a
 * real child process), `gatehouse user add` refuses, says the service holds DATA_DIR and how to
 * proceed, exits 1 and writes nothing; a second service refuses to start there too. Once the
 * service stops, the same command works; a lock left by a killed service is taken over.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/adapters/sql/data-dir-lock.js';
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
    'gatehouse user add refuses while the service runs, naming the service and the ways on, exit 1, nothing written',
    async () => {
      service = await startService({ DATA_DIR: dataDir });
      const added = await addUser('ann');
      expect(added.code).toBe(1);
      expect(added.stdout).toBe('');
      expect(added.stderr).toMatch(
        new RegExp(
          `^error DATA_DIR_IN_USE: DATA_DIR ${dataDir} is held by the Gatehouse service \\(pid ${service.pid}, `,
        ),
      );
      expect(added.stderr).toContain('Stop the service, then run this again');
      expect(added.stderr).toContain('DATABASE_URL');
      // The service still serves, and knows no "ann".
      const client = new TestClient(service.url);
      expect((await client.get('/readyz')).status).toBe(200);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(401);

      // A second service on the same folder refuses to start, with the same reason.
      await expect(startService({ DATA_DIR: dataDir })).rejects.toThrow(
        new RegExp(
          `Gatehouse failed to start: DATA_DIR ${dataDir} is held by the Gatehouse service \\(pid ${service.pid}, `,
        ),
      );

      // Stopped, the service gives the folder up: nothing of "ann" was written, and the command works.
      await service.stop();
      service = undefined;
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      expect(await userExists('ann')).toBe(false);
      const again = await addUser('ann');
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      expect(await userExists('ann')).toBe(true);
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
