/**
 * Contract 4a for the gateways that do not run here (Traefik, Envoy): the exact requests each one
 * sends to the check, replayed against a real Gatehouse. nginx and Caddy run for real in
 * forward-auth.test.ts; what they send is replayed here too where the rule is the service's.
 *
 * Traefik's `forwardAuth` (pkg/middlewares/auth/forward.go, traefik/traefik, read at fd5a576):
 * a GET to `address` (the original method only with `preserveRequestMethod`) carrying the client's
 * headers (Cookie, Origin, Sec-Fetch-Site among them) minus the hop-by-hop ones; with
 * `trustForwardHeader: false` the client's X-Forwarded-* are deleted and X-Forwarded-Method,
 * -Proto, -Host, -Uri, -For and -Port are set from the request; any 2xx grants.
 *
 * Envoy's `ext_authz` in HTTP mode (envoyproxy.io docs, ext_authz filter and HttpService;
 * source/extensions/filters/common/ext_authz/ext_authz_http_impl.cc): the original method, the
 * path `path_prefix` + the original path (query included), Host, Content-Length 0 and the headers
 * `allowed_headers` lets through; only 200 grants, any other status is sent to the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawResponse as RawAnswer, send } from '../security/support.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';
const APP = 'app.example.com';
const PORTAL = 'https://portal.example.com';

/** One request exactly as a gateway sends it: any method, any headers (Host included). */
const rawRequest = (url: string, method: string, path: string, headers: Array<[string, string]> = []) =>
  send(url, path, { method, headers: Object.fromEntries(headers) });

for (const target of TRANSPORT_TARGETS) {
  describe(`the requests gateways send to the check [${target}]`, () => {
    let gatehouse: TestServer;
    let cookie: string;

    beforeAll(async () => {
      gatehouse = await startTestServer({ store: target, env: { TRUSTED_ORIGINS: PORTAL } });
      await seedUser(gatehouse, { username: 'ann', password: PASSWORD, userId: 'u-ann', tenantId: 't1' });
      const client = new TestClient(gatehouse.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      cookie = `sessionid=${client.session}`;
    });
    afterAll(async () => {
      await gatehouse?.close();
    });

    function expectLive(answer: RawAnswer, status: 200 | 204) {
      expect(answer.status).toBe(status);
      expect(answer.text).toBe('');
      expect(answer.headers['gatehouse-user-id']).toBe('u-ann');
      expect(answer.headers['gatehouse-user-level']).toBe('0');
      expect(answer.headers['gatehouse-tenant-id']).toBe('t1');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['set-cookie']).toBeUndefined();
    }

    function expectRefused(answer: RawAnswer, status: number, code: string) {
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ status, code });
      expect(answer.headers['gatehouse-user-id']).toBeUndefined();
    }

    describe('Envoy ext_authz (path_prefix /api/v1/session/check/envoy)', () => {
      /** What Envoy sends for `method path` with cookie, origin and sec-fetch-site allowed. */
      const envoy = (method: string, path: string, headers: Array<[string, string]> = []) =>
        rawRequest(gatehouse.url, method, `/api/v1/session/check/envoy${path}`, [
          ['host', APP],
          ['content-length', '0'],
          ['x-forwarded-proto', 'https'],
          ...headers,
        ]);

      it('answers 200 with an empty body for a live session, whatever the method and path', async () => {
        for (const [method, path] of [
          ['GET', '/'],
          ['GET', '/orders/42?view=full'],
          ['HEAD', '/orders/42'],
          ['POST', '/orders'],
          ['PUT', '/orders/42'],
          ['PATCH', '/orders/42'],
          ['DELETE', '/orders/42'],
          ['OPTIONS', '/orders'],
        ] as const) {
          const answer = await envoy(method, path, [['cookie', cookie]]);
          expectLive(answer, 200);
        }
      });

      it('answers a same-origin or trusted unsafe request, refuses a foreign or cross-site one with 403 ORIGIN_REJECTED', async () => {
        const post = (headers: Array<[string, string]>) =>
          envoy('POST', '/orders', [['cookie', cookie], ...headers]);
        expectLive(await post([['origin', `https://${APP}`]]), 200);
        expectLive(
          await post([
            ['origin', PORTAL],
            ['sec-fetch-site', 'cross-site'],
          ]),
          200,
        );
        expectRefused(await post([['origin', 'https://evil.example']]), 403, 'ORIGIN_REJECTED');
        expectRefused(await post([['sec-fetch-site', 'cross-site']]), 403, 'ORIGIN_REJECTED');
        // The method is Envoy's own: a header saying otherwise changes nothing.
        expectRefused(
          await post([
            ['origin', 'https://evil.example'],
            ['x-forwarded-method', 'GET'],
          ]),
          403,
          'ORIGIN_REJECTED',
        );
        // A safe method from anywhere is a read, as on the service's own routes.
        expectLive(
          await envoy('GET', '/orders', [
            ['cookie', cookie],
            ['origin', 'https://evil.example'],
          ]),
          200,
        );
      });

      it('never answers 2xx without a session: 401 for every method, OPTIONS included', async () => {
        for (const method of ['GET', 'OPTIONS', 'POST', 'DELETE']) {
          expectRefused(await envoy(method, '/orders/42'), 401, 'NOT_AUTHENTICATED');
        }
      });
    });

    describe('Traefik forwardAuth (address http://gatehouse:8080/api/v1/session/check/, trustForwardHeader: false)', () => {
      /** What Traefik sends for a client's `method` request to https://app.example.com/orders. */
      const traefik = (method: string, headers: Array<[string, string]>, checkMethod = 'GET') =>
        rawRequest(gatehouse.url, checkMethod, '/api/v1/session/check/', [
          ['host', new URL(gatehouse.url).host],
          ['x-forwarded-for', '203.0.113.9'],
          ['x-forwarded-method', method],
          ['x-forwarded-proto', 'https'],
          ['x-forwarded-port', '443'],
          ['x-forwarded-host', APP],
          ['x-forwarded-uri', '/orders'],
          ...headers,
        ]);

      it('answers 204 for a live session, and for a same-origin or trusted unsafe request', async () => {
        expectLive(await traefik('GET', [['cookie', cookie]]), 204);
        expectLive(
          await traefik('POST', [
            ['cookie', cookie],
            ['origin', `https://${APP}`],
          ]),
          204,
        );
        expectLive(
          await traefik('DELETE', [
            ['cookie', cookie],
            ['origin', PORTAL],
          ]),
          204,
        );
      });

      it('refuses an unsafe request from a foreign origin or a cross-site fetch with 403 ORIGIN_REJECTED', async () => {
        expectRefused(
          await traefik('POST', [
            ['cookie', cookie],
            ['origin', 'https://evil.example'],
          ]),
          403,
          'ORIGIN_REJECTED',
        );
        expectRefused(
          await traefik('DELETE', [
            ['cookie', cookie],
            ['sec-fetch-site', 'cross-site'],
          ]),
          403,
          'ORIGIN_REJECTED',
        );
        // Its own origin is the application's (X-Forwarded-Host), not the check's.
        expectRefused(
          await traefik('POST', [
            ['cookie', cookie],
            ['origin', gatehouse.url],
          ]),
          403,
          'ORIGIN_REJECTED',
        );
      });

      it('with preserveRequestMethod, never answers 2xx without a session: OPTIONS and POST are 401', async () => {
        for (const method of ['OPTIONS', 'POST']) {
          expectRefused(await traefik(method, [], method), 401, 'NOT_AUTHENTICATED');
        }
        expectLive(
          await traefik(
            'POST',
            [
              ['cookie', cookie],
              ['origin', `https://${APP}`],
            ],
            'POST',
          ),
          204,
        );
      });
    });

    it('keeps the plain check as it was: GET and HEAD with a cookie alone, 204', async () => {
      expectLive(await rawRequest(gatehouse.url, 'GET', '/api/v1/session/check/', [['cookie', cookie]]), 204);
      expectLive(
        await rawRequest(gatehouse.url, 'HEAD', '/api/v1/session/check/', [['cookie', cookie]]),
        204,
      );
      expectRefused(
        await rawRequest(gatehouse.url, 'OPTIONS', '/api/v1/session/check/'),
        401,
        'NOT_AUTHENTICATED',
      );
      expect((await rawRequest(gatehouse.url, 'GET', '/api/v1/session/check/elsewhere/')).status).toBe(404);
    });
  });
}
