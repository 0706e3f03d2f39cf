/**
 * Contract 3b for the embedded guards (Koa, Express, Fastify): a pending session is refused (403
 * MFA_REQUIRED) by every guard, and the step-up options `requireMfa` and `maxAuthAgeS` refuse a
 * session made with one factor (403 MFA_REQUIRED) or too long ago (403 REAUTHENTICATION_REQUIRED).
 * The granted user carries how and when the session was made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/user/user.js';
import { gatehouseSession as expressSession } from '../../src/guards/express.js';
import { expectProblem } from '../support/expect-problem.js';
import { issuePendingSession, issueSession } from '../support/issued-sessions.js';
import { PRODUCT_FRAMEWORKS, type ProductApp, startProductApp } from '../support/product-apps.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

for (const framework of PRODUCT_FRAMEWORKS) {
  describe(`the ${framework} guard and second factors`, () => {
    let server: TestServer;
    let product: ProductApp;
    let ann: User;

    beforeAll(async () => {
      // The in-memory session store keeps a session's facts on this branch (amr, time).
      server = await startTestServer({ store: 'memory' });
      ann = await seedUser(server, {
        username: 'ann',
        password: 'a long passphrase of hers',
        userId: 'u-ann',
      });
      product = await startProductApp(framework, server.gatehouse);
    });
    afterAll(async () => {
      await product?.close();
      await server?.close();
    });

    const minutesAgo = (minutes: number) => new Date(server.clock.now().getTime() - minutes * 60_000);
    const get = (path: string, cookie: string) => new TestClient(product.url).get(path, { cookie });

    it('refuses a pending session of either stage on every guarded route, never reaching the handler', async () => {
      const before = product.reached();
      for (const stage of ['second_factor', 'enrolment'] as const) {
        const { cookie } = await issuePendingSession(server.gatehouse.container, ann, stage);
        expectProblem(await get('/api/v1/things', cookie), 403, 'MFA_REQUIRED');
        expectProblem(await get('/api/v1/billing', cookie), 403, 'MFA_REQUIRED');
        const ack = await new TestClient(product.url).request('POST', '/api/v1/things/ack', {
          headers: { cookie },
        });
        expectProblem(ack, 403, 'MFA_REQUIRED');
      }
      expect(product.reached()).toBe(before);
    });

    it('requireMfa: a one-factor session is 403 MFA_REQUIRED, a two-factor one passes', async () => {
      const one = await issueSession(server.gatehouse.container, ann, { stage: 'full', amr: ['pwd'] });
      expectProblem(await get('/api/v1/billing', one.cookie), 403, 'MFA_REQUIRED');
      // Without the step-up the same session is fine.
      expect((await get('/api/v1/things', one.cookie)).status).toBe(200);

      const two = await issueSession(server.gatehouse.container, ann, { stage: 'full', amr: ['pwd', 'otp'] });
      const granted = await get('/api/v1/billing', two.cookie);
      expect(granted.status).toBe(200);
      expect(granted.body).toEqual({
        userId: 'u-ann',
        username: 'ann',
        userLevel: 0,
        authMethods: ['pwd', 'otp'],
        authTime: Math.floor(server.clock.now().getTime() / 1000),
      });
    });

    it('maxAuthAgeS: an authentication older than allowed is 403 REAUTHENTICATION_REQUIRED', async () => {
      const old = await issueSession(server.gatehouse.container, ann, {
        stage: 'full',
        amr: ['pwd', 'hwk'],
        authTime: minutesAgo(6),
      });
      expectProblem(await get('/api/v1/billing', old.cookie), 403, 'REAUTHENTICATION_REQUIRED');
      expect((await get('/api/v1/things', old.cookie)).status).toBe(200);
      const recent = await issueSession(server.gatehouse.container, ann, {
        stage: 'full',
        amr: ['pwd', 'hwk'],
        authTime: minutesAgo(4),
      });
      expect((await get('/api/v1/billing', recent.cookie)).status).toBe(200);
    });
  });
}

describe('a guard’s step-up options', () => {
  it('refuses a maxAuthAgeS that is not a whole number of seconds when the guard is made', () => {
    const gatehouse = {
      authenticator: { authenticate: () => Promise.reject(new Error('not called')) },
      config: { cookie: { name: 'sessionid' }, trustedOrigins: [] },
    };
    for (const maxAuthAgeS of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => expressSession({ gatehouse, maxAuthAgeS }), String(maxAuthAgeS)).toThrow(TypeError);
    expect(() => expressSession({ gatehouse, maxAuthAgeS: 0, requireMfa: true })).not.toThrow();
  });
});
