/**
 * gatehouse-client and second factors (contract 3b), against a real service: a pending session
 * never counts as logged in (403 MFA_REQUIRED is passed on as a refusal), `requireMfa` and
 * `maxAuthAgeS` become the check's `mfa=1` and `max_age=`, and the user carries `authMethods` and
 * `authTime` from the identity headers. The three middlewares answer the refusals as the service.
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/adapters/http/server.js';
import { gatehouseSession as expressSession } from '../../src/client/express.js';
import { gatehouseSession as fastifySession } from '../../src/client/fastify.js';
import { createSessionCheck } from '../../src/client/index.js';
import { gatehouseSession as koaSession } from '../../src/client/koa.js';
import type { User } from '../../src/domain/user/user.js';
import { issuePendingSession, issueSession } from '../support/issued-sessions.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const BILLING = { requireMfa: true, maxAuthAgeS: 300 } as const;

describe('gatehouse-client against a service with second factors', () => {
  let server: TestServer;
  let ann: User;
  let bob: User;
  const apps: Array<{ url: string; close(): Promise<void> }> = [];

  beforeAll(async () => {
    // The in-memory session store keeps a session's facts on this branch (amr, time).
    server = await startTestServer({ store: 'memory' });
    ann = await seedUser(server, { username: 'ann', password: 'a long passphrase of hers', userId: 'u-ann' });
    bob = await seedUser(server, {
      username: 'bob',
      password: 'a long passphrase of his',
      userId: 'u-bob',
      mustChangePassword: true,
    });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await server?.close();
  });

  const secondsAgo = (seconds: number) => new Date(server.clock.now().getTime() - seconds * 1000);
  const issue = (amr: string[], authTime = server.clock.now(), user = ann) =>
    issueSession(server.gatehouse.container, user, { stage: 'full', amr, authTime });

  it('never counts a pending session as logged in, of either stage, whatever the options', async () => {
    for (const stage of ['second_factor', 'enrolment'] as const) {
      const { cookie } = await issuePendingSession(server.gatehouse.container, ann, stage);
      for (const options of [{}, BILLING])
        expect(await createSessionCheck({ url: server.url, ...options })(cookie)).toEqual({
          status: 'mfa_required',
        });
    }
  });

  it('hands over how and when the session was made', async () => {
    const authTime = secondsAgo(30);
    const { cookie } = await issue(['pwd', 'otp'], authTime);
    expect(await createSessionCheck({ url: server.url })(cookie)).toEqual({
      status: 'live',
      user: {
        userId: 'u-ann',
        username: 'ann',
        userLevel: 0,
        authMethods: ['pwd', 'otp'],
        authTime: Math.floor(authTime.getTime() / 1000),
      },
    });
  });

  it('requireMfa and maxAuthAgeS: mfa_required, reauthentication_required, or live', async () => {
    const check = createSessionCheck({ url: server.url, ...BILLING });
    expect(await check((await issue(['pwd'])).cookie)).toEqual({ status: 'mfa_required' });
    expect(await check((await issue(['pwd', 'hwk'], secondsAgo(301))).cookie)).toEqual({
      status: 'reauthentication_required',
    });
    expect((await check((await issue(['pwd', 'hwk'], secondsAgo(299))).cookie)).status).toBe('live');
    // Without the options the one-factor session is fine, and an expired password stays `expired`.
    expect((await createSessionCheck({ url: server.url })((await issue(['pwd'])).cookie)).status).toBe(
      'live',
    );
    expect(await check((await issue(['pwd', 'otp'], server.clock.now(), bob)).cookie)).toEqual({
      status: 'expired',
    });
  });

  it('refuses a maxAuthAgeS that is not a whole number of seconds when the check is made', () => {
    for (const maxAuthAgeS of [-1, 2.5, Number.NaN])
      expect(() => createSessionCheck({ url: server.url, maxAuthAgeS }), String(maxAuthAgeS)).toThrow(
        TypeError,
      );
  });

  describe('a service that grants without saying how the session was made (one from before second factors)', () => {
    let old: Server;
    let url: string;
    const asked: string[] = [];

    beforeAll(async () => {
      old = createServer((request, response) => {
        asked.push(request.url ?? '');
        response
          .writeHead(204, {
            'gatehouse-user-id': 'u-ann',
            'gatehouse-username': 'ann',
            'gatehouse-user-level': '0',
          })
          .end();
      });
      await new Promise<void>((resolve) => old.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(old.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => old.close(() => resolve())));

    it('is still a live session without a step-up, and unavailable (fail closed) with one', async () => {
      expect(await createSessionCheck({ url })('sessionid=x')).toEqual({
        status: 'live',
        user: { userId: 'u-ann', username: 'ann', userLevel: 0 },
      });
      expect(await createSessionCheck({ url, ...BILLING })('sessionid=x')).toEqual({ status: 'unavailable' });
      expect(asked).toEqual(['/api/v1/session/check/', '/api/v1/session/check/?mfa=1&max_age=300']);
    });
  });

  const MIDDLEWARES = {
    express: async (options: Record<string, unknown>) => {
      const app = express();
      app.use(expressSession({ url: server.url, ...options }));
      app.get('/billing', (req, res) => {
        res.json(req.gatehouse);
      });
      return listen({ callback: () => app }, 0, '127.0.0.1');
    },
    fastify: async (options: Record<string, unknown>) => {
      const app = Fastify();
      await app.register(fastifySession, { url: server.url, ...options });
      app.get('/billing', async (request) => request.gatehouse);
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: address, close: () => app.close() };
    },
    koa: async (options: Record<string, unknown>) => {
      const app = new Koa();
      app.use(koaSession({ url: server.url, ...options }));
      app.use((ctx) => {
        ctx.body = ctx.state.gatehouse;
      });
      return listen(app, 0, '127.0.0.1');
    },
  };

  for (const [framework, start] of Object.entries(MIDDLEWARES)) {
    it(`${framework}: answers the step-up refusals as the service, and a pending session 403 MFA_REQUIRED`, async () => {
      const billing = await start(BILLING);
      const plain = await start({});
      apps.push(billing, plain);
      const get = async (url: string, cookie: string) => new TestClient(url).get('/billing', { cookie });
      const refused = async (url: string, cookie: string, code: string) => {
        const answer = await get(url, cookie);
        expect({ status: answer.status, code: answer.body?.code }).toEqual({ status: 403, code });
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      };
      const pending = await issuePendingSession(server.gatehouse.container, ann);
      await refused(plain.url, pending.cookie, 'MFA_REQUIRED');
      await refused(billing.url, pending.cookie, 'MFA_REQUIRED');
      await refused(billing.url, (await issue(['pwd'])).cookie, 'MFA_REQUIRED');
      await refused(
        billing.url,
        (await issue(['pwd', 'otp'], secondsAgo(600))).cookie,
        'REAUTHENTICATION_REQUIRED',
      );
      const granted = await get(billing.url, (await issue(['pwd', 'otp'])).cookie);
      expect(granted.status).toBe(200);
      expect(granted.body).toMatchObject({
        userId: 'u-ann',
        authMethods: ['pwd', 'otp'],
        authTime: expect.any(Number),
      });
    });
  }
});
