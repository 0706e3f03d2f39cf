/**
 * Contract 4a: `GET /api/v1/session/check/`, the forward-auth check a gateway calls before it
 * passes a request on. 204 with the identity headers for a live session; 401, 403 and problem+json
 * otherwise; never a cookie set or cleared; the same time-outs as `GET /api/v1/session/`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLICY_TARGETS } from '../support/databases.js';
import { ANN, FRESH, PASSWORD, ZOE } from '../support/identity-users.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const CHECK = '/api/v1/session/check/';

for (const store of POLICY_TARGETS) {
  describe(`forward auth: the session check [${store}]`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ store });
      await seedUser(server, ANN);
      await seedUser(server, ZOE);
      await seedUser(server, { ...FRESH, tenantId: 't1', groupId: 'g1' });
    });
    afterAll(async () => {
      await server?.close();
    });

    async function loggedIn(username: string): Promise<TestClient> {
      const client = new TestClient(server.url);
      expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      return client;
    }

    function expectProblem(response: Awaited<ReturnType<TestClient['get']>>, status: number, code: string) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.code).toBe(code);
      expect(response.setCookies).toEqual([]);
      expect(response.headers.get('gatehouse-user-id')).toBeNull();
    }

    it('answers 204 with who the session belongs to, no body, no-store, no cookie', async () => {
      const client = await loggedIn('ann');
      const response = await client.get(CHECK);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.setCookies).toEqual([]);
      expect(response.headers.get('gatehouse-user-id')).toBe('u-ann');
      expect(response.headers.get('gatehouse-username')).toBe('ann');
      expect(response.headers.get('gatehouse-user-level')).toBe('0');
      expect(response.headers.get('gatehouse-tenant-id')).toBe('t1');
      expect(response.headers.get('gatehouse-group-id')).toBe('g1');
    });

    it('percent-encodes a username that is not ASCII, and leaves out ids the user has not', async () => {
      const response = await (await loggedIn('zoë')).get(CHECK);
      expect(response.status).toBe(204);
      expect(response.headers.get('gatehouse-username')).toBe('zo%C3%AB');
      expect(decodeURIComponent(response.headers.get('gatehouse-username')!)).toBe('zoë');
      expect(response.headers.get('gatehouse-tenant-id')).toBeNull();
      expect(response.headers.get('gatehouse-group-id')).toBeNull();
    });

    it('answers 401 NOT_AUTHENTICATED without a cookie, with an unknown one, and after logout', async () => {
      expectProblem(await new TestClient(server.url).get(CHECK), 401, 'NOT_AUTHENTICATED');
      const forged = new TestClient(server.url);
      forged.cookies.set('sessionid', 'A'.repeat(43));
      expectProblem(await forged.get(CHECK), 401, 'NOT_AUTHENTICATED');
      const client = await loggedIn('ann');
      expect((await client.post('/api/v1/logout/', {})).status).toBe(200);
      const token = new TestClient(server.url);
      token.cookies.set('sessionid', client.session ?? 'gone');
      expectProblem(await token.get(CHECK), 401, 'NOT_AUTHENTICATED');
    });

    it('answers 403 PASSWORD_EXPIRED on a session whose credentials expired', async () => {
      expectProblem(await (await loggedIn('fresh')).get(CHECK), 403, 'PASSWORD_EXPIRED');
    });

    it('reads only the Cookie header: an identity header sent by the client changes nothing', async () => {
      const response = await new TestClient(server.url).get(CHECK, {
        'gatehouse-user-id': 'u-ann',
        'gatehouse-username': 'ann',
        authorization: 'Bearer whatever',
      });
      expectProblem(response, 401, 'NOT_AUTHENTICATED');
    });

    it('follows the idle time-out of GET /api/v1/session/', async () => {
      const client = await loggedIn('ann');
      server.clock.advanceSeconds(server.config.session.idleTimeoutS - 1);
      // A check counts as use (last seen), as a session GET does.
      expect((await client.get(CHECK)).status).toBe(204);
      server.clock.advanceSeconds(server.config.session.idleTimeoutS - 1);
      expect((await client.get('/api/v1/session/')).status).toBe(200);
      server.clock.advanceSeconds(server.config.session.idleTimeoutS);
      expectProblem(await client.get(CHECK), 401, 'NOT_AUTHENTICATED');
    });
  });
}
