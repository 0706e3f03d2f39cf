/**
 * What ends a session on its next check, and what must not end one: a disabled user's session is
 * deleted when it is next presented (enabling the user again does not bring it back), and a
 * logout presenting two live session cookies ends neither (a cookie planted from a sibling domain
 * must not let a logout pick the account).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(
    `ending sessions on their next check [${store}]`,
    () => {
      let server: TestServer;

      beforeAll(async () => {
        server = await startTestServer({ store });
        for (const username of ['ann', 'bob', 'cid']) {
          await seedUser(server, { username, password: PASSWORD, tenantId: 't1', groupId: 'g1' });
        }
      });
      afterAll(() => server?.close());

      async function sessionOf(username: string): Promise<string> {
        const client = new TestClient(server.url);
        expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
        return client.session!;
      }
      const withCookies = (...values: string[]) => ({
        cookie: values.map((value) => `sessionid=${value}`).join('; '),
      });
      const statusOf = async (token: string) =>
        (await new TestClient(server.url).get('/api/v1/session/', withCookies(token))).status;

      it("deletes a disabled user's session when it is presented: enabling the user again does not revive it", async () => {
        const user = await server.gatehouse.store.users.findByUsername('cid');
        const first = await sessionOf('cid');
        const untouched = await sessionOf('cid');
        await server.gatehouse.store.users.setDisabled(user!.userId, true);
        expect(await statusOf(first)).toBe(401);
        await server.gatehouse.store.users.setDisabled(user!.userId, false);
        // The session checked while the user was disabled is gone; the other one was never checked.
        expect(await statusOf(first)).toBe(401);
        expect(await statusOf(untouched)).toBe(200);
      });

      it('a logout presenting two live session cookies ends neither', async () => {
        const ann = await sessionOf('ann');
        const bob = await sessionOf('bob');
        const response = await new TestClient(server.url).post('/api/v1/logout/', {}, withCookies(bob, ann));
        expect(response.status).toBe(200);
        expect(response.setCookies.some((line) => /^sessionid=;/.test(line))).toBe(true);
        expect(await statusOf(ann)).toBe(200);
        expect(await statusOf(bob)).toBe(200);
        // Each on its own is ended by a logout.
        for (const token of [ann, bob]) {
          expect(
            (await new TestClient(server.url).post('/api/v1/logout/', {}, withCookies(token))).status,
          ).toBe(200);
          expect(await statusOf(token)).toBe(401);
        }
      });
    },
  );
}
