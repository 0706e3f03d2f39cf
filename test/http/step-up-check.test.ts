/**
 * Contract 3b step-up at the forward-auth check and in `GET /api/v1/session/`: `?mfa=1` and
 * `?max_age=S` (bad values 400 INVALID_REQUEST), 403 MFA_REQUIRED / REAUTHENTICATION_REQUIRED,
 * and how and when the session was made in `Gatehouse-Auth-Methods` / `Gatehouse-Auth-Time` and
 * in the session's `session` member. Both transports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/user/user.js';
import { expectProblem } from '../support/expect-problem.js';
import { issuePendingSession, issueSession } from '../support/issued-sessions.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const CHECK = '/api/v1/session/check/';

for (const transport of ['koa', 'fastify'] as const) {
  describe(`step-up at the forward-auth check and the session [${transport}]`, () => {
    let server: TestServer;
    let ann: User;

    beforeAll(async () => {
      // The in-memory session store keeps a session's facts on this branch (amr, time).
      server = await startTestServer({ store: 'memory', env: { HTTP_TRANSPORT: transport } });
      ann = await seedUser(server, {
        username: 'ann',
        password: 'a long passphrase of hers',
        userId: 'u-ann',
      });
    });
    afterAll(() => server?.close());

    const secondsAgo = (seconds: number) => new Date(server.clock.now().getTime() - seconds * 1000);
    const check = (query: string, cookie: string) =>
      new TestClient(server.url).get(`${CHECK}${query}`, { cookie });
    const issue = (amr: string[], authTime = server.clock.now()) =>
      issueSession(server.gatehouse.container, ann, { stage: 'full', amr, authTime });

    it('adds how and when the session was made to the identity headers', async () => {
      const authTime = secondsAgo(42);
      const { cookie } = await issue(['pwd', 'otp'], authTime);
      const answer = await check('', cookie);
      expect(answer.status).toBe(204);
      expect(answer.headers.get('gatehouse-user-id')).toBe('u-ann');
      expect(answer.headers.get('gatehouse-auth-methods')).toBe('pwd,otp');
      expect(answer.headers.get('gatehouse-auth-time')).toBe(String(Math.floor(authTime.getTime() / 1000)));
    });

    it('percent-encodes a method reference that is not a plain token, so the comma list stays a list', async () => {
      const { cookie } = await issueSession(
        server.gatehouse.container,
        ann,
        { stage: 'full', amr: ['sso', 'a,b', 'é'] },
        { method: 'sso' },
      );
      expect((await check('', cookie)).headers.get('gatehouse-auth-methods')).toBe('sso,a%2Cb,%C3%A9');
    });

    it('?mfa=1 refuses a one-factor session with 403 MFA_REQUIRED and no identity, grants a two-factor one', async () => {
      const one = await issue(['pwd']);
      const refused = await check('?mfa=1', one.cookie);
      expectProblem(refused, 403, 'MFA_REQUIRED');
      expect(refused.headers.get('gatehouse-user-id')).toBeNull();
      expect((await check('', one.cookie)).status).toBe(204);
      for (const amr of [['pwd', 'otp'], ['pwd', 'hwk'], ['pwd', 'recovery'], ['mfa'], ['sso', 'mfa']]) {
        expect((await check('?mfa=1', (await issue(amr)).cookie)).status, amr.join()).toBe(204);
      }
    });

    it('?max_age=S refuses an older authentication with 403 REAUTHENTICATION_REQUIRED', async () => {
      const old = await issue(['pwd', 'otp'], secondsAgo(301));
      expectProblem(await check('?max_age=300', old.cookie), 403, 'REAUTHENTICATION_REQUIRED');
      expect((await check('?max_age=302', old.cookie)).status).toBe(204);
      expectProblem(await check('?mfa=1&max_age=300', old.cookie), 403, 'REAUTHENTICATION_REQUIRED');
      const recent = await issue(['pwd', 'otp'], secondsAgo(10));
      expect((await check('?mfa=1&max_age=300', recent.cookie)).status).toBe(204);
    });

    it('answers a malformed step-up with 400 INVALID_REQUEST, with or without a session', async () => {
      const { cookie } = await issue(['pwd', 'otp']);
      for (const query of [
        '?mfa=0',
        '?mfa=true',
        '?mfa=',
        '?max_age=-1',
        '?max_age=5m',
        '?max_age=1.5',
        '?mfa=1&mfa=1',
      ]) {
        expectProblem(await check(query, cookie), 400, 'INVALID_REQUEST');
        expectProblem(await check(query, ''), 400, 'INVALID_REQUEST');
      }
    });

    it('refuses a pending session at the check whatever it asks, with no identity headers', async () => {
      const { cookie } = await issuePendingSession(server.gatehouse.container, ann);
      for (const query of ['', '?mfa=1', '?max_age=300']) {
        const answer = await check(query, cookie);
        expectProblem(answer, 403, 'MFA_REQUIRED');
        expect([...answer.headers.keys()].filter((name) => name.startsWith('gatehouse-'))).toEqual([]);
      }
    });

    it('GET /api/v1/session/ shows the session’s amr and auth_time', async () => {
      const authTime = secondsAgo(7);
      const { cookie } = await issue(['pwd', 'hwk'], authTime);
      const answer = await new TestClient(server.url).get('/api/v1/session/', { cookie });
      expect(answer.status).toBe(200);
      expect(answer.body.session).toEqual({
        amr: ['pwd', 'hwk'],
        auth_time: Math.floor(authTime.getTime() / 1000),
      });
    });
  });
}
