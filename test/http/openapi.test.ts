/**
 * `GET /api/v1/openapi.json`: a valid OpenAPI 3.1 document that describes what the service really
 * answers. Every endpoint's live answers (successes and errors) are checked against it with the
 * conformance helper other HTTP tests can use too (test/support/openapi-conformance.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/adapters/http/openapi/document.js';
import { STATUS_BY_CODE } from '../../src/adapters/http/problem.js';
import type { ErrorCode } from '../../src/domain/shared/domain-error.js';
import { nonce, ProviderTap, REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { OpenApiConformance } from '../support/openapi-conformance.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';

// biome-ignore lint/suspicious/noExplicitAny: answers of every shape, each checked against the document
type Json = Record<string, any>;
type Response = Awaited<ReturnType<TestClient['request']>>;

/** Checks the answer against the document, and that it is the one the test meant to provoke. */
function conforms(
  conformance: OpenApiConformance,
  method: string,
  path: string,
  response: Response,
  expected: { status: number; code?: ErrorCode },
): void {
  conformance.assert(method, path, response);
  expect(response.status).toBe(expected.status);
  if (expected.code) expect(response.body.code).toBe(expected.code);
}

/** The (method, path) pairs the service routes, path parameters as `{name}`. */
function servedRoutes(server: TestServer): string[] {
  return server.gatehouse.app.routes
    .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
    .sort();
}

function documentedRoutes(document: Json): string[] {
  return Object.entries(document.paths as Json)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

for (const target of TRANSPORT_TARGETS) {
  describe(`OpenAPI document [${target}]`, () => {
    let server: TestServer;
    let document: Json;
    let conformance: OpenApiConformance;

    beforeAll(async () => {
      server = await startTestServer({
        store: target,
        env: { LOGIN_MAX_FAILURES: '1', METRICS_ON_MAIN_PORT: 'true' },
      });
      await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'carl', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, { username: 'dora', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
      await seedUser(server, {
        username: 'exp',
        password: PASSWORD,
        tenantId: 't1',
        groupId: 'g1',
        mustChangePassword: true,
      });
      await seedUser(server, { username: 'sam', password: PASSWORD, userLevel: 16 });
      const response = await new TestClient(server.url).get('/api/v1/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      document = response.body;
      conformance = new OpenApiConformance(document);
    });
    afterAll(() => server.close());

    it('is a valid OpenAPI 3.1 document', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it('documents exactly the routes the app serves', () => {
      expect(documentedRoutes(document)).toEqual(servedRoutes(server));
      expect(documentedRoutes(document)).toEqual(
        expect.arrayContaining([
          'POST /api/v1/login/',
          'POST /api/v1/logout/',
          'GET /api/v1/session/',
          'POST /api/v1/password/',
          'POST /api/v1/openid/login/',
          'POST /api/v1/openid/logout/',
          'POST /api/v1/openid/backchannel-logout/',
          'GET /healthz',
          'GET /readyz',
          'GET /api/v1/openapi.json',
          'GET /metrics',
        ]),
      );
    });

    it('lists, per operation and status, only codes that have that status', () => {
      let checked = 0;
      for (const [path, item] of Object.entries(document.paths as Json)) {
        for (const [method, operation] of Object.entries(item as Json)) {
          for (const [status, response] of Object.entries(operation.responses as Json)) {
            const problem = response.content?.['application/problem+json'];
            if (!problem) continue;
            expect(problem.schema.properties.status.const, `${method} ${path} ${status}`).toBe(
              Number(status),
            );
            for (const code of problem.schema.properties.code.enum as ErrorCode[]) {
              expect(STATUS_BY_CODE[code], `${method} ${path}: ${code}`).toBe(Number(status));
              checked += 1;
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(40);
    });

    it('describes the session cookie, Set-Cookie on logins, the problem schema and examples', () => {
      expect(document.openapi).toMatch(/^3\.1\./);
      expect(document.components.securitySchemes.sessionCookie).toMatchObject({
        type: 'apiKey',
        in: 'cookie',
        name: 'sessionid',
      });
      const login = document.paths['/api/v1/login/'].post;
      expect(login.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/LoginRequest',
      });
      expect(login.responses['200'].headers['Set-Cookie']).toEqual({
        $ref: '#/components/headers/SetSessionCookie',
      });
      expect(login.responses['401'].content['application/problem+json'].schema.properties.code.enum).toEqual([
        'AUTHENTICATION_FAILED',
      ]);
      expect(login.responses['429'].headers['Retry-After']).toBeDefined();
      expect(document.paths['/api/v1/session/'].get.security).toEqual([{ sessionCookie: [] }]);
      expect(document.paths['/api/v1/openid/backchannel-logout/'].post.requestBody.content).toHaveProperty(
        'application/x-www-form-urlencoded',
      );
      const schemas = document.components.schemas;
      expect(schemas.Problem.properties.code.enum).toEqual(Object.keys(STATUS_BY_CODE));
      expect(schemas.LoginResponse.examples).toHaveLength(1);
      expect(schemas.SessionProfile.properties).not.toHaveProperty('phoneNumber');
      expect(schemas.Profile.properties).toHaveProperty('phoneNumber');
      // Requests ignore unknown fields; answers never carry undocumented ones.
      expect(schemas.LoginRequest.additionalProperties).toBeUndefined();
      expect(schemas.LoginResponse.additionalProperties).toBe(false);
    });

    it('is built once: every request gets the same bytes', async () => {
      const client = new TestClient(server.url);
      const [first, second] = await Promise.all([
        client.get('/api/v1/openapi.json'),
        client.get('/api/v1/openapi.json'),
      ]);
      expect(first.text).toBe(second.text);
      conforms(conformance, 'GET', '/api/v1/openapi.json', first, { status: 200 });
    });

    it('uses the configured cookie name and leaves /metrics out when it has a port of its own', () => {
      // The table as served without /metrics on the main port (METRICS_PORT set).
      const built = buildOpenApiDocument({
        routes: server.gatehouse.app.routes.filter((route) => route.path !== '/metrics'),
        cookieName: '__Host-sessionid',
        version: '9.9.9',
      }) as Json;
      expect(built.components.securitySchemes.sessionCookie.name).toBe('__Host-sessionid');
      expect(built.components.headers.SetSessionCookie.schema.pattern).toBe(
        '^__Host-sessionid=[A-Za-z0-9_-]+;',
      );
      expect(built.paths['/metrics']).toBeUndefined();
      expect(built.info.version).toBe('9.9.9');
    });

    describe('live answers conform', () => {
      it('POST /api/v1/login/', async () => {
        const path = '/api/v1/login/';
        const client = new TestClient(server.url);
        const ok = await client.post(path, { username: 'ann', password: PASSWORD });
        conforms(conformance, 'POST', path, ok, { status: 200 });
        expect(ok.body.profile.username).toBe('ann');
        // A system administrator has no ids at all.
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, { username: 'sam', password: PASSWORD }),
          {
            status: 200,
          },
        );
        conforms(conformance, 'POST', path, await client.post(path, { username: 'ann' }), {
          status: 400,
          code: 'INVALID_REQUEST',
        });
        conforms(
          conformance,
          'POST',
          path,
          await client.request('POST', path, {
            body: '{"username":',
            headers: { 'content-type': 'application/json' },
          }),
          { status: 400, code: 'INVALID_REQUEST' },
        );
        conforms(
          conformance,
          'POST',
          path,
          await client.request('POST', path, {
            body: 'username=ann',
            headers: { 'content-type': 'text/plain' },
          }),
          { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        );
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, { username: 'ann', password: 'x'.repeat(20_000) }),
          { status: 413, code: 'PAYLOAD_TOO_LARGE' },
        );
        conforms(
          conformance,
          'POST',
          path,
          await client.post(
            path,
            { username: 'ann', password: PASSWORD },
            { origin: 'https://evil.example' },
          ),
          { status: 403, code: 'ORIGIN_REJECTED' },
        );
        // LOGIN_MAX_FAILURES=1: the first failure blocks the account for a while.
        const failed = await client.post(path, { username: 'carl', password: 'wrong password' });
        conforms(conformance, 'POST', path, failed, { status: 401, code: 'AUTHENTICATION_FAILED' });
        const throttled = await client.post(path, { username: 'carl', password: PASSWORD });
        conforms(conformance, 'POST', path, throttled, { status: 429, code: 'TOO_MANY_ATTEMPTS' });
        // The same path without its trailing slash is the same operation.
        conforms(conformance, 'POST', '/api/v1/login', await client.post('/api/v1/login', {}), {
          status: 400,
          code: 'INVALID_REQUEST',
        });
      });

      it('GET /api/v1/session/', async () => {
        const path = '/api/v1/session/';
        conforms(conformance, 'GET', path, await new TestClient(server.url).get(path), {
          status: 401,
          code: 'NOT_AUTHENTICATED',
        });
        const client = new TestClient(server.url);
        await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
        const ok = await client.get(path);
        conforms(conformance, 'GET', path, ok, { status: 200 });
        expect(ok.body.profile).not.toHaveProperty('phoneNumber');

        const expired = new TestClient(server.url);
        conforms(
          conformance,
          'POST',
          '/api/v1/login/',
          await expired.post('/api/v1/login/', { username: 'exp', password: PASSWORD }),
          { status: 200 },
        );
        conforms(conformance, 'GET', path, await expired.get(path), {
          status: 403,
          code: 'PASSWORD_EXPIRED',
        });
      });

      it('POST /api/v1/password/', async () => {
        const path = '/api/v1/password/';
        conforms(
          conformance,
          'POST',
          path,
          await new TestClient(server.url).post(path, { old_password: PASSWORD, new_password: NEW_PASSWORD }),
          { status: 401, code: 'NOT_AUTHENTICATED' },
        );
        const client = new TestClient(server.url);
        await client.post('/api/v1/login/', { username: 'dora', password: PASSWORD });
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, { old_password: PASSWORD, new_password: 'short' }),
          {
            status: 400,
            code: 'PASSWORD_POLICY',
          },
        );
        conforms(conformance, 'POST', path, await client.post(path, { old_password: PASSWORD }), {
          status: 400,
          code: 'INVALID_REQUEST',
        });
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, { old_password: PASSWORD, new_password: NEW_PASSWORD }),
          { status: 200 },
        );
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, {
            old_password: 'not the password',
            new_password: 'yet another passphrase',
          }),
          { status: 403, code: 'CURRENT_PASSWORD_MISMATCH' },
        );
        // LOGIN_MAX_FAILURES=1: that mismatch blocks further attempts.
        conforms(
          conformance,
          'POST',
          path,
          await client.post(path, { old_password: NEW_PASSWORD, new_password: 'yet another passphrase' }),
          { status: 429, code: 'TOO_MANY_ATTEMPTS' },
        );
      });

      it('POST /api/v1/logout/', async () => {
        const path = '/api/v1/logout/';
        const client = new TestClient(server.url);
        await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD });
        conforms(conformance, 'POST', path, await client.post(path, {}), { status: 200 });
        conforms(conformance, 'POST', path, await client.request('POST', path), { status: 200 });
        conforms(conformance, 'POST', path, await client.post(path, [1, 2]), {
          status: 400,
          code: 'INVALID_REQUEST',
        });
      });

      it('the SSO routes without an OpenID provider', async () => {
        const client = new TestClient(server.url);
        for (const path of ['/api/v1/openid/login/', '/api/v1/openid/logout/']) {
          conforms(conformance, 'POST', path, await client.post(path, {}), {
            status: 404,
            code: 'SSO_NOT_CONFIGURED',
          });
        }
        conforms(
          conformance,
          'POST',
          '/api/v1/openid/backchannel-logout/',
          await client.request('POST', '/api/v1/openid/backchannel-logout/', {
            body: 'logout_token=x',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
          { status: 404, code: 'SSO_NOT_CONFIGURED' },
        );
      });

      it('GET /healthz, /readyz, /metrics', async () => {
        const client = new TestClient(server.url);
        conforms(conformance, 'GET', '/healthz', await client.get('/healthz'), { status: 200 });
        conforms(conformance, 'GET', '/readyz', await client.get('/readyz'), { status: 200 });
        const metrics = await client.get('/metrics');
        conforms(conformance, 'GET', '/metrics', metrics, { status: 200 });
        expect(metrics.text).toContain('gatehouse_logins_total');
      });

      it('reports an answer that departs from the document', () => {
        const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' });
        expect(
          conformance.check('GET', '/healthz', { status: 200, headers, body: { status: 'ok', extra: 1 } }),
        ).toEqual([expect.stringContaining('must NOT have additional properties')]);
        expect(conformance.check('GET', '/healthz', { status: 418, headers, body: {} })).toEqual([
          expect.stringContaining('status not documented'),
        ]);
        expect(
          conformance.check('POST', '/api/v1/login/', {
            status: 200,
            headers,
            body: { ids: {}, profile: { user_level: 0, is_first_login: true } },
          }),
        ).toEqual([expect.stringContaining('header Set-Cookie missing')]);
        expect(conformance.check('GET', '/nowhere', { status: 404, headers })).toEqual([
          expect.stringContaining('not in the document'),
        ]);
      });
    });
  });
}

for (const target of TRANSPORT_TARGETS) {
  describe(`OpenAPI document: single sign-on answers conform [${target}]`, () => {
    let tp: TestProvider;
    let tap: ProviderTap;
    let server: TestServer;
    let conformance: OpenApiConformance;
    let unreachable = false;

    beforeAll(async () => {
      tp = await startTestProvider({
        accounts: {
          gina: { preferred_username: 'gina', groups: ['g1'] },
          stranger: { preferred_username: 'stranger', groups: ['g1'] },
        },
      });
      tap = new ProviderTap(() => tp.issuer);
      const oidcFetch = ((input: string | URL | Request, init?: RequestInit) =>
        unreachable ? Promise.reject(new TypeError('fetch failed')) : tap.fetch(input, init)) as typeof fetch;
      server = await startTestServer({ store: target, env: ssoEnv(tp), oidcFetch });
      await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
      conformance = await OpenApiConformance.load(server.url);
    });
    afterAll(async () => {
      await server?.close();
      await tp?.close();
    });

    it('POST /api/v1/openid/login/ and /api/v1/openid/logout/', async () => {
      const login = '/api/v1/openid/login/';
      const client = new TestClient(server.url);
      conforms(conformance, 'POST', login, await ssoLogin(client, tp, { accountId: 'gina' }), {
        status: 200,
      });
      conforms(
        conformance,
        'POST',
        '/api/v1/openid/logout/',
        await client.post('/api/v1/openid/logout/', {}),
        {
          status: 200,
        },
      );

      const other = new TestClient(server.url);
      conforms(conformance, 'POST', login, await ssoLogin(other, tp, { accountId: 'stranger' }), {
        status: 401,
        code: 'SSO_INVALID_GROUPID_AND_USERNAME',
      });
      conforms(
        conformance,
        'POST',
        login,
        await ssoLogin(other, tp, { accountId: 'gina', loginNonce: nonce() }),
        {
          status: 401,
          code: 'SSO_INVALID',
        },
      );
      conforms(
        conformance,
        'POST',
        login,
        await ssoLogin(other, tp, { accountId: 'gina', loginRedirectUri: 'https://elsewhere.example/cb' }),
        { status: 400, code: 'INVALID_REQUEST' },
      );
      const sent = nonce();
      const { code } = await tp.issueCode({ accountId: 'gina', nonce: sent, redirectUri: REDIRECT_URI });
      const body = { nonce: sent, authorization_code: code, redirect_uri: REDIRECT_URI };
      conforms(conformance, 'POST', login, await other.post(login, body), { status: 200 });
      conforms(conformance, 'POST', login, await other.post(login, body), {
        status: 401,
        code: 'SSO_REFUSED',
      });

      unreachable = true;
      try {
        conforms(conformance, 'POST', login, await ssoLogin(other, tp, { accountId: 'gina' }), {
          status: 502,
          code: 'SSO_UNREACHABLE',
        });
      } finally {
        unreachable = false;
      }
    });

    it('POST /api/v1/openid/backchannel-logout/', async () => {
      const path = '/api/v1/openid/backchannel-logout/';
      const post = (body: string, contentType = 'application/x-www-form-urlencoded') =>
        new TestClient(server.url).request('POST', path, { body, headers: { 'content-type': contentType } });
      const token = tp.signLogoutToken({ sub: 'gina' });
      conforms(
        conformance,
        'POST',
        path,
        await post(new URLSearchParams({ logout_token: token }).toString()),
        {
          status: 200,
        },
      );
      conforms(conformance, 'POST', path, await post('logout_token=not-a-jwt'), {
        status: 400,
        code: 'INVALID_REQUEST',
      });
      conforms(conformance, 'POST', path, await post('{}', 'application/json'), {
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    });
  });
}
