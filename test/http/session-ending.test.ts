/**
 * A disabled user's session is deleted when it is next presented: enabling the user again does not
 * bring it back (disabling the account ended its sessions already; one that raced it ends here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`a disabled user's session [${store}]`, () => {
    let server: TestServer;
    let userId: string;

    beforeAll(async () => {
      server = await startTestServer({ store });
      userId = (
        await seedUser(server, { username: 'cid', password: PASSWORD, tenantId: 't1', groupId: 'g1' })
      ).userId;
    });
    afterAll(() => server?.close());

    async function login(): Promise<string> {
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username: 'cid', password: PASSWORD })).status).toBe(200);
      return client.session!;
    }
    // The cookie sent as it is: a 401 that clears it must not stop the next request carrying it.
    const statusOf = async (token: string) =>
      (await new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${token}` })).status;

    it('is deleted when presented: enabling the user again does not revive it', async () => {
      const checked = await login();
      const untouched = await login();
      await server.gatehouse.store.users.setDisabled(userId, true);
      expect(await statusOf(checked)).toBe(401);
      await server.gatehouse.store.users.setDisabled(userId, false);
      // The session checked while the user was disabled is gone; the other one was never checked.
      expect(await statusOf(checked)).toBe(401);
      expect(await statusOf(untouched)).toBe(200);
    });
  });
}
