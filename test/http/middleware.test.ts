import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import type { GatehouseState } from '../../src/adapters/http/state.js';
import { pgEnabled, SERVICE_STORES } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

type Response = Awaited<ReturnType<TestClient['request']>>;

function expectProblem(response: Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof response.body.request_id).toBe('string');
  expect(response.text).not.toMatch(/\n\s+at /);
}

for (const store of SERVICE_STORES) {
  describe.skipIf(store === 'postgres' && !pgEnabled)(`requireSession on a product route [${store}]`, () => {
    let server: TestServer;
    let product: RunningServer;
    let reached = 0;

    beforeAll(async () => {
      server = await startTestServer({ store });
      await seedUser(server, {
        username: 'ann',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        userId: 'u-ann',
      });
      await seedUser(server, {
        username: 'fresh',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        mustChangePassword: true,
      });

      // A product team's own Koa service, mounting Gatehouse's guard on its routes.
      const app = new Koa<GatehouseState>();
      const router = new Router<GatehouseState>();
      router.get('/api/v1/things', server.gatehouse.requireSession(), (ctx) => {
        reached += 1;
        const { user, session } = ctx.state.gatehouse!;
        ctx.body = { username: user.username, userId: user.userId, method: session.method };
      });
      router.post(
        '/api/v1/things/ack',
        server.gatehouse.requireSession({ allowExpiredCredentials: true }),
        (ctx) => {
          reached += 1;
          ctx.body = { username: ctx.state.gatehouse!.user.username };
        },
      );
      app.use(router.routes());
      product = await listen(app, 0, '127.0.0.1');
    });
    afterAll(async () => {
      await product?.close(1000);
      await server?.close();
    });

    /** Logs in on Gatehouse and returns a client for the product service carrying that cookie. */
    async function productClient(username: string): Promise<TestClient> {
      const gatehouse = new TestClient(server.url);
      expect((await gatehouse.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      const client = new TestClient(product.url);
      client.cookies.set('sessionid', gatehouse.session!);
      return client;
    }

    it('answers 200 with the session and the user on ctx.state.gatehouse', async () => {
      const client = await productClient('ann');
      const response = await client.get('/api/v1/things');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ username: 'ann', userId: 'u-ann', method: 'password' });
    });

    it('answers 401 NOT_AUTHENTICATED without a session, never reaching the handler', async () => {
      const before = reached;
      expectProblem(await new TestClient(product.url).get('/api/v1/things'), 401, 'NOT_AUTHENTICATED');
      const forged = new TestClient(product.url);
      forged.cookies.set('sessionid', 'A'.repeat(43));
      expectProblem(await forged.get('/api/v1/things'), 401, 'NOT_AUTHENTICATED');
      expect(reached).toBe(before);
    });

    it('answers 401 once the session is logged out on Gatehouse', async () => {
      const client = await productClient('ann');
      expect((await client.get('/api/v1/things')).status).toBe(200);
      const logout = await new TestClient(server.url).post(
        '/api/v1/logout/',
        {},
        { cookie: `sessionid=${client.session}` },
      );
      expect(logout.status).toBe(200);
      expectProblem(await client.get('/api/v1/things'), 401, 'NOT_AUTHENTICATED');
    });

    it('answers 403 PASSWORD_EXPIRED for a session whose credentials expired', async () => {
      const client = await productClient('fresh');
      const before = reached;
      expectProblem(await client.get('/api/v1/things'), 403, 'PASSWORD_EXPIRED');
      expect(reached).toBe(before);
    });

    it('lets an expired session through where the route allows it', async () => {
      const client = await productClient('fresh');
      const response = await client.post('/api/v1/things/ack', {});
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ username: 'fresh' });
    });

    // Issue 11, finding 11: a product route has no origin check in front of it; the guard is one.
    it('refuses a state change from a foreign origin with 403 ORIGIN_REJECTED, never reaching the handler', async () => {
      const client = await productClient('ann');
      const before = reached;
      const response = await client.post('/api/v1/things/ack', {}, { origin: 'https://evil.example' });
      expectProblem(response, 403, 'ORIGIN_REJECTED');
      expect(reached).toBe(before);
    });

    it('answers 401 after the idle time-out, by the Gatehouse clock', async () => {
      const client = await productClient('ann');
      server.clock.advanceSeconds(server.config.session.idleTimeoutS);
      expectProblem(await client.get('/api/v1/things'), 401, 'NOT_AUTHENTICATED');
    });
  });
}
