/**
 * gatehouse-client (contract 9): an Express, a Fastify and a Koa app beside a running Gatehouse,
 * each protected by the client's middleware over the forward-auth endpoint. 200 with the right
 * user, 401, 403, and 503 with Retry-After when Gatehouse is gone or too slow (never 500, never a
 * 401 for that).
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { gatehouseSession as expressSession } from '../../src/client/express.js';
import { gatehouseSession as fastifySession } from '../../src/client/fastify.js';
import { createSessionCheck } from '../../src/client/index.js';
import { gatehouseSession as koaSession } from '../../src/client/koa.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

type App = { url: string; close(): Promise<void> };

async function expressApp(url: string): Promise<App> {
  const app = express();
  app.use(expressSession({ url, timeoutMs: 500 }));
  app.get('/me', (req, res) => {
    res.json((req as unknown as { gatehouse: unknown }).gatehouse);
  });
  const running: RunningServer = await listen({ callback: () => app }, 0, '127.0.0.1');
  return { url: running.url, close: () => running.close(500) };
}

async function fastifyApp(url: string): Promise<App> {
  const app: FastifyInstance = Fastify();
  await app.register(fastifySession as never, { url, timeoutMs: 500 });
  app.get('/me', async (request) => (request as unknown as { gatehouse: unknown }).gatehouse);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, close: () => app.close() };
}

async function koaApp(url: string): Promise<App> {
  const app = new Koa();
  app.use(koaSession({ url, timeoutMs: 500 }) as never);
  app.use((ctx) => {
    ctx.body = ctx.state.gatehouse;
  });
  const running = await listen(app, 0, '127.0.0.1');
  return { url: running.url, close: () => running.close(500) };
}

const APPS = { express: expressApp, fastify: fastifyApp, koa: koaApp } as const;

for (const [framework, start] of Object.entries(APPS)) {
  describe(`gatehouse-client in a ${framework} app`, () => {
    let gatehouse: TestServer;
    let app: App;
    let gatehouseStopped = false;

    beforeAll(async () => {
      gatehouse = await startTestServer();
      await seedUser(gatehouse, {
        username: 'ann',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        userId: 'u-ann',
      });
      await seedUser(gatehouse, { username: 'zoë', password: PASSWORD, userId: 'u-zoe' });
      await seedUser(gatehouse, { username: 'fresh', password: PASSWORD, mustChangePassword: true });
      app = await start(gatehouse.url);
    });
    afterAll(async () => {
      await app?.close();
      if (!gatehouseStopped) await gatehouse?.close();
    });

    async function cookieOf(username: string): Promise<string> {
      const client = new TestClient(gatehouse.url);
      expect((await client.post('/api/v1/login/', { username, password: PASSWORD })).status).toBe(200);
      // Another cookie of the app's own beside it: it is not sent on to Gatehouse.
      return `theme=dark; sessionid=${client.session}`;
    }

    const me = (cookie?: string) => new TestClient(app.url).get('/me', cookie ? { cookie } : {});

    function expectRefusal(response: Awaited<ReturnType<typeof me>>, status: number, code: string) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status, code });
      expect(typeof response.body.request_id).toBe('string');
    }

    it('answers 200 with the user of a live session', async () => {
      const response = await me(await cookieOf('ann'));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        userId: 'u-ann',
        username: 'ann',
        userLevel: 0,
        tenantId: 't1',
        groupId: 'g1',
      });
      const zoe = await me(await cookieOf('zoë'));
      expect(zoe.body).toEqual({ userId: 'u-zoe', username: 'zoë', userLevel: 0 });
    });

    it('answers 401 NOT_AUTHENTICATED without a session, and after logout', async () => {
      expectRefusal(await me(), 401, 'NOT_AUTHENTICATED');
      expectRefusal(await me(`sessionid=${'A'.repeat(43)}`), 401, 'NOT_AUTHENTICATED');
      const cookie = await cookieOf('ann');
      expect((await new TestClient(gatehouse.url).post('/api/v1/logout/', {}, { cookie })).status).toBe(200);
      expectRefusal(await me(cookie), 401, 'NOT_AUTHENTICATED');
    });

    it('answers 403 PASSWORD_EXPIRED for a session whose password expired', async () => {
      expectRefusal(await me(await cookieOf('fresh')), 403, 'PASSWORD_EXPIRED');
    });

    it('answers 503 with Retry-After when Gatehouse is gone, never 401 or 500', async () => {
      const cookie = await cookieOf('ann');
      await gatehouse.close();
      gatehouseStopped = true;
      const response = await me(cookie);
      expectRefusal(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers.get('retry-after')).toBe('5');
    });
  });
}

describe('createSessionCheck', () => {
  let slow: Server;
  let url: string;

  beforeAll(async () => {
    // A "Gatehouse" that never answers.
    slow = createServer(() => undefined);
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
  });
  afterAll(() => {
    slow.closeAllConnections();
    slow.close();
  });

  it('counts a service that never answers as unavailable once timeoutMs passed', async () => {
    // Without the time-out this would wait for ever (the test's own time-out); how soon it gives
    // up is test/client/session-check-answers.test.ts's, by timer order, not by the clock.
    const check = createSessionCheck({ url, timeoutMs: 200 });
    expect(await check(`sessionid=${'B'.repeat(43)}`)).toEqual({ status: 'unavailable' });
  });

  it('asks nothing when the request carries no session cookie', async () => {
    const check = createSessionCheck({ url, timeoutMs: 200, cookieName: 'portal_session' });
    expect(await check(undefined)).toEqual({ status: 'none' });
    expect(await check(`sessionid=${'B'.repeat(43)}`)).toEqual({ status: 'none' });
  });
});
