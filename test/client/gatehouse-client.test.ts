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
import { ANN, ANN_IDENTITY, FRESH, PASSWORD, ZOE } from '../support/identity-users.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PORTAL = 'https://portal.example.com';

type App = { url: string; close(): Promise<void> };

// Each app as the package README mounts it, typed as an adopter's code is (no casts).
async function expressApp(url: string): Promise<App> {
  const app = express();
  app.use(expressSession({ url, timeoutMs: 500, trustedOrigins: [PORTAL] }));
  app.get('/me', (req, res) => {
    res.json(req.gatehouse);
  });
  app.post('/me', (req, res) => {
    res.json(req.gatehouse);
  });
  const running: RunningServer = await listen({ callback: () => app }, 0, '127.0.0.1');
  return { url: running.url, close: () => running.close(500) };
}

async function fastifyApp(url: string): Promise<App> {
  const app: FastifyInstance = Fastify();
  await app.register(fastifySession, { url, timeoutMs: 500, trustedOrigins: [PORTAL] });
  app.get('/me', async (request) => request.gatehouse);
  app.post('/me', async (request) => request.gatehouse);
  app.post(
    '/notes',
    {
      schema: {
        body: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 10 } } },
      },
    },
    async (request) => request.gatehouse,
  );
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, close: () => app.close() };
}

async function koaApp(url: string): Promise<App> {
  const app = new Koa();
  app.use(koaSession({ url, timeoutMs: 500, trustedOrigins: [PORTAL] }));
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
      await seedUser(gatehouse, ANN);
      await seedUser(gatehouse, ZOE);
      await seedUser(gatehouse, FRESH);
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

    const me = (cookie?: string, headers: Record<string, string> = {}) =>
      new TestClient(app.url).get('/me', cookie ? { cookie, ...headers } : headers);

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
        ...ANN_IDENTITY,
        authMethods: ['pwd'],
        authTime: expect.any(Number),
      });
      const zoe = await me(await cookieOf('zoë'));
      expect(zoe.body).toEqual({
        userId: 'u-zoe',
        username: 'zoë',
        userLevel: 0,
        authMethods: ['pwd'],
        authTime: expect.any(Number),
      });
    });

    it('answers 401 NOT_AUTHENTICATED without a session, and after logout', async () => {
      expectRefusal(await me(), 401, 'NOT_AUTHENTICATED');
      expectRefusal(await me(`sessionid=${'A'.repeat(43)}`), 401, 'NOT_AUTHENTICATED');
      const cookie = await cookieOf('ann');
      expect((await new TestClient(gatehouse.url).post('/api/v1/logout/', {}, { cookie })).status).toBe(200);
      expectRefusal(await me(cookie), 401, 'NOT_AUTHENTICATED');
    });

    it('refuses an unsafe request from a foreign origin or a cross-site fetch with 403 ORIGIN_REJECTED, as the service does', async () => {
      const cookie = await cookieOf('ann');
      const post = (headers: Record<string, string>) =>
        new TestClient(app.url).request('POST', '/me', { headers: { cookie, ...headers } });
      expectRefusal(await post({ origin: 'https://evil.example' }), 403, 'ORIGIN_REJECTED');
      expectRefusal(await post({ 'sec-fetch-site': 'cross-site' }), 403, 'ORIGIN_REJECTED');
      // Refused whether or not there is a session, as on the service.
      expectRefusal(
        await new TestClient(app.url).request('DELETE', '/me', {
          headers: { origin: 'https://evil.example' },
        }),
        403,
        'ORIGIN_REJECTED',
      );
      // The app's own origin, a trusted one, no Origin at all, and a read from anywhere pass.
      const passing: Array<Record<string, string>> = [
        { origin: app.url },
        { origin: PORTAL, 'sec-fetch-site': 'cross-site' },
        {},
      ];
      for (const headers of passing) {
        const response = await post(headers);
        expect(response.status).toBe(200);
        expect(response.body.userId).toBe('u-ann');
      }
      expect((await me(cookie, { origin: 'https://evil.example' })).status).toBe(200);
    });

    it('answers 403 PASSWORD_EXPIRED for a session whose password expired', async () => {
      expectRefusal(await me(await cookieOf('fresh')), 403, 'PASSWORD_EXPIRED');
    });

    // Fastify alone validates bodies before handlers: its guard must answer first.
    if (framework === 'fastify')
      it('answers 401 before a route validates the body, never its 400 details', async () => {
        const notes = (body: string, cookie?: string) =>
          new TestClient(app.url).request('POST', '/notes', {
            body,
            headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
          });
        expectRefusal(await notes('{"text": "far too long a note"}'), 401, 'NOT_AUTHENTICATED');
        expectRefusal(await notes('{not json'), 401, 'NOT_AUTHENTICATED');
        expect((await notes('{"text": "far too long a note"}', await cookieOf('ann'))).status).toBe(400);
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

describe('createSessionCheck against a service that grants without saying who', () => {
  let fake: Server;
  let url: string;
  /** The headers the fake service grants with, by the test. */
  let answer: { status: number; headers: Record<string, string> };

  beforeAll(async () => {
    fake = createServer((_request, response) => {
      response.writeHead(answer.status, answer.headers).end();
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
  });
  afterAll(() => {
    fake.closeAllConnections();
    fake.close();
  });

  const WHO = { 'gatehouse-user-id': 'u-ann', 'gatehouse-username': 'ann', 'gatehouse-user-level': '4' };
  const checkWith = async (status: number, headers: Record<string, string>) => {
    answer = { status, headers };
    return createSessionCheck({ url })(`sessionid=${'C'.repeat(43)}`);
  };

  it('takes a 204 or 200 with a well-formed user as live', async () => {
    const live = { status: 'live', user: { userId: 'u-ann', username: 'ann', userLevel: 4 } };
    expect(await checkWith(204, WHO)).toEqual(live);
    expect(await checkWith(200, WHO)).toEqual(live);
  });

  it('fails closed (unavailable, never live) on a missing or malformed user level, id or username', async () => {
    const { 'gatehouse-user-level': _level, ...noLevel } = WHO;
    const { 'gatehouse-user-id': _id, ...noId } = WHO;
    const { 'gatehouse-username': _name, ...noName } = WHO;
    for (const headers of [
      noLevel,
      noId,
      noName,
      { ...WHO, 'gatehouse-user-level': '' },
      { ...WHO, 'gatehouse-user-level': 'admin' },
      { ...WHO, 'gatehouse-user-level': '-1' },
      { ...WHO, 'gatehouse-user-level': '4.5' },
      { ...WHO, 'gatehouse-user-level': '0x10' },
      { ...WHO, 'gatehouse-user-level': '1e1' },
      { ...WHO, 'gatehouse-username': '%E0%A4%A' },
    ]) {
      expect(await checkWith(204, headers)).toEqual({ status: 'unavailable' });
    }
    expect(await checkWith(202, WHO)).toEqual({ status: 'unavailable' });
  });
});
