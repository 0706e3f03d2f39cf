/**
 * Contract 3b: a pending session never counts as logged in. Walks the WHOLE route table the
 * service serves, on both transports: every route that reads a session refuses a pending one (of
 * either stage) with 403 MFA_REQUIRED as problem+json, unless its rule admits that stage
 * (route.ts); both logouts end it (200) and clear the cookie. A route added later is covered by
 * this walk without being named here: only the routes that do not read a session are listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../../src/adapters/http/route.js';
import { isGuarded } from '../../src/adapters/http/route.js';
import type { User } from '../../src/domain/user/user.js';
import { expectProblem } from '../support/expect-problem.js';
import { issuePendingSession } from '../support/issued-sessions.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

/** The routes under rule `optional`: they read a cookie only to end its session. */
const LOGOUTS = ['POST /api/v1/logout/', 'POST /api/v1/openid/logout/'];
const LOGINS = ['POST /api/v1/login/', 'POST /api/v1/openid/login/', 'POST /api/v1/webauthn/login/'];
const STAGES = ['second_factor', 'enrolment'] as const;

/** A request path for a route: each `:parameter` stands for one segment. */
const pathOf = (route: Route) => route.path.replace(/:\w+/g, 'x');
const nameOf = (route: Route) => `${route.method} ${route.path}`;

/** Whether the route's rule admits a pending session of this stage (route.ts). */
function admits(route: Route, stage: (typeof STAGES)[number]): boolean {
  return (
    (route.session === 'pending-second-factor' && stage === 'second_factor') ||
    (route.session === 'live-or-enrolment' && stage === 'enrolment')
  );
}

for (const transport of ['koa', 'fastify'] as const) {
  describe(`a pending session on every route of the service [${transport}]`, () => {
    let server: TestServer;
    let routes: readonly Route[];
    let ann: User;

    beforeAll(async () => {
      server = await startTestServer({
        // The in-memory session store keeps the session's stage on this branch (see
        // pending-route-rules.test.ts); the transport is the one under test.
        store: 'memory',
        env: {
          HTTP_TRANSPORT: transport,
          // Every route the service can have: /metrics on the main port, and the SSO routes (the
          // provider is never called: a password session's SSO logout ends locally).
          METRICS_ON_MAIN_PORT: 'true',
          OIDC_ISSUER: 'http://127.0.0.1:9/',
          OIDC_CLIENT_ID: 'gatehouse',
          OIDC_CLIENT_SECRET: 'a client secret',
          OIDC_REDIRECT_URIS: 'https://portal.example.com/callback',
          OIDC_ALLOW_INSECURE_HTTP: 'true',
        },
      });
      routes = server.gatehouse.app.routes;
      ann = await seedUser(server, {
        username: 'ann',
        password: 'a long passphrase of hers',
        tenantId: 't1',
      });
    });
    afterAll(() => server?.close());

    it('serves the transport under test, and every route is either guarded or one of the known others', () => {
      expect(server.gatehouse.app.transport).toBe(transport);
      for (const route of routes) {
        if (isGuarded(route.session) || route.session === 'none') continue;
        expect([...LOGINS, ...LOGOUTS], nameOf(route)).toContain(nameOf(route));
      }
      expect(routes.filter((route) => isGuarded(route.session)).length).toBeGreaterThan(5);
    });

    it('refuses a pending session with 403 MFA_REQUIRED on every guarded route that does not admit its stage', async () => {
      for (const stage of STAGES) {
        const { cookie } = await issuePendingSession(server.gatehouse.container, ann, stage);
        for (const route of routes.filter((candidate) => isGuarded(candidate.session))) {
          const name = `${nameOf(route)} (${stage})`;
          const answer = await new TestClient(server.url).request(route.method, pathOf(route), {
            headers: { cookie, ...(route.method === 'GET' ? {} : { 'content-type': 'application/json' }) },
            ...(route.method === 'GET' ? {} : { body: '{}' }),
          });
          if (admits(route, stage)) {
            expect(answer.body?.code, name).not.toBe('MFA_REQUIRED');
            continue;
          }
          expect({ name, status: answer.status, code: answer.body?.code }).toEqual({
            name,
            status: 403,
            code: 'MFA_REQUIRED',
          });
          expectProblem(answer, 403, 'MFA_REQUIRED');
          // Forward auth above all: no identity for a gateway to pass on.
          expect(
            [...answer.headers.keys()].filter((header) => header.startsWith('gatehouse-')),
            name,
          ).toEqual([]);
          expect(answer.setCookies, name).toEqual([]);
        }
      }
    });

    it('ends a pending session on either logout, clearing the cookie', async () => {
      for (const stage of STAGES) {
        for (const logout of LOGOUTS) {
          const route = routes.find((candidate) => nameOf(candidate) === logout);
          expect(route, logout).toBeDefined();
          const { cookie } = await issuePendingSession(server.gatehouse.container, ann, stage);
          const before = await new TestClient(server.url).get('/api/v1/session/', { cookie });
          expectProblem(before, 403, 'MFA_REQUIRED');
          const answer = await new TestClient(server.url).request('POST', route!.path, {
            headers: { cookie, 'content-type': 'application/json' },
            body: '{}',
          });
          expect({ logout, stage, status: answer.status, body: answer.body }).toEqual({
            logout,
            stage,
            status: 200,
            body: {},
          });
          expect(answer.setCookies.some((line) => /^sessionid=;/.test(line) && /Max-Age=0/i.test(line))).toBe(
            true,
          );
          // Gone, not merely refused: the same cookie is now no session at all.
          const after = await new TestClient(server.url).get('/api/v1/session/', { cookie });
          expectProblem(after, 401, 'NOT_AUTHENTICATED');
        }
      }
    });
  });
}
