import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgres, pgEnabled, type TestPgSqlClient, testRedisUrl } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';
import { CLI_TEST_TIMEOUT_MS, runGatehouse } from './cli-support.js';

const PASSWORD = 'correct horse battery staple';

// Shared architecture convention 2: the `gatehouse` command reaches every store the service uses,
// sessions in Redis included. Users live in PostgreSQL (a subprocess cannot share an in-memory
// PGlite), sessions in the run's redis-server under this test's key prefix.
describe.skipIf(!pgEnabled)('gatehouse sessions on SESSION_STORE=redis [redis]', () => {
  let database: TestPgSqlClient;
  let server: TestServer;
  const prefix = `cli${process.pid}:`;
  const env = () => ({
    DATABASE_URL: database.connectionString,
    SESSION_STORE: 'redis',
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: prefix,
  });

  beforeAll(async () => {
    database = await openTestPostgres();
    server = await startTestServer({ sqlClient: database, env: env() });
    await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it(
    'lists and revokes the sessions kept in Redis; the service refuses them at once',
    async () => {
      const browsers = [new TestClient(server.url), new TestClient(server.url)];
      for (const browser of browsers) {
        expect((await browser.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(
          200,
        );
      }
      const listed = await runGatehouse(['sessions', 'list', '--user', 'ann'], { env: env() });
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n')[0]).toBe('2 sessions of "ann"');

      const revoked = await runGatehouse(['sessions', 'revoke', '--user', 'ann'], { env: env() });
      expect(revoked).toMatchObject({ code: 0, stdout: 'ended 2 sessions of "ann"\n' });
      for (const browser of browsers) expect((await browser.get('/api/v1/session/')).status).toBe(401);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
