/**
 * Contract 4a for the gateways that do not run here (Traefik, Envoy): the exact requests each one
 * sends to the check, built from the recipes of docs/gateways.md (recipes.ts reads them from the
 * page), replayed against a real Gatehouse; and what each gateway then makes of every answer,
 * from its source. nginx and Caddy run for real in forward-auth.test.ts.
 *
 * Traefik's `forwardAuth` (pkg/middlewares/auth/forward.go, traefik/traefik, read at fd5a576):
 * a GET to `address` (the original method only with `preserveRequestMethod`) carrying the client's
 * headers that `authRequestHeaders` lets through, minus the hop-by-hop ones; with
 * `trustForwardHeader: false` the client's X-Forwarded-* are deleted and X-Forwarded-Method,
 * -Proto (from the connection Traefik received: `http` behind a TLS load balancer), -Host, -Uri,
 * -For and -Port are set from the request; with `true` the ones that reached the middleware (the
 * entry point keeps them only from its `forwardedHeaders.trustedIPs`) are kept and the missing
 * ones set. Any 2xx grants; any other answer goes to the client as it is (status, headers, body);
 * no answer at all (refused, reset, 30 s) is a bare 500 of Traefik's own.
 *
 * Envoy's `ext_authz` in HTTP mode (api/envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto;
 * source/extensions/filters/common/ext_authz/ext_authz_http_impl.cc): the original method, the
 * path `path_prefix` + the original path (query included), Host, Content-Length 0 and the headers
 * `allowed_headers` lets through; only 200 grants; a 4xx goes to the client with its body; any 5xx,
 * like no answer, is an error, answered with `status_on_error` (403 unless set) and an empty body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawResponse as RawAnswer, send } from '../security/support.js';
import { TRANSPORT_TARGETS } from '../support/databases.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';
import { envoyRecipe, traefikRecipe } from './recipes.js';

const PASSWORD = 'correct horse battery staple';
const APP = 'app.example.com';
const PORTAL = 'https://portal.example.com';

const ENVOY = envoyRecipe();
const TRAEFIK = traefikRecipe();

/** One request exactly as a gateway sends it: any method, any headers (Host included). */
const rawRequest = (url: string, method: string, path: string, headers: Array<[string, string]> = []) =>
  send(url, path, { method, headers: Object.fromEntries(headers) });

/** The headers a gateway passes on from the client's request: the ones its recipe lets through. */
const passedOn = (allowed: readonly string[], client: Array<[string, string]>) =>
  client.filter(([name]) => allowed.some((header) => header.toLowerCase() === name.toLowerCase()));

/**
 * What Envoy sends for a client's `method path` with `client` headers (the recipe's
 * `allowed_headers` filter them), behind a connection manager that set `x-forwarded-proto`.
 */
const envoyCheck = (url: string, method: string, path: string, client: Array<[string, string]> = []) =>
  rawRequest(url, method, `${ENVOY.pathPrefix}${path}`, [
    ['host', APP],
    ['content-length', '0'],
    ...passedOn(ENVOY.allowedHeaders, [['x-forwarded-proto', 'https'], ...client]),
  ]);

/**
 * What Traefik sends for a client's `method` request to app.example.com/orders: the recipe's
 * `authRequestHeaders` of the client's, then its own X-Forwarded-* (`forwarded`: what they say,
 * by default those of a client on a TLS connection to Traefik itself).
 */
const traefikCheck = (
  url: string,
  method: string,
  client: Array<[string, string]>,
  options: { checkMethod?: string; forwarded?: Array<[string, string]> } = {},
) =>
  rawRequest(url, options.checkMethod ?? 'GET', TRAEFIK.checkPath, [
    ['host', new URL(url).host],
    ...passedOn(TRAEFIK.authRequestHeaders, client),
    ...(options.forwarded ?? [
      ['x-forwarded-for', '203.0.113.9'],
      ['x-forwarded-method', method],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-port', '443'],
      ['x-forwarded-host', APP],
      ['x-forwarded-uri', '/orders'],
    ]),
  ]);

describe('the recipes of docs/gateways.md, as the gateways read them', () => {
  it('Envoy: ExtAuthz.allowed_headers (not the deprecated authorization_request one), cookie among them', () => {
    expect(ENVOY.usesAuthorizationRequest).toBe(false);
    expect(ENVOY.allowedHeadersOnExtAuthz).toBe(true);
    expect(ENVOY.allowedHeaders).toEqual(expect.arrayContaining(['cookie', 'origin', 'sec-fetch-site']));
    expect(ENVOY.pathPrefix).toBe('/api/v1/session/check/envoy');
  });

  it("Envoy: Gatehouse's 503 or no answer reaches the client as 503 with Retry-After, never Envoy's default 403", () => {
    // Envoy answers every 5xx of the authorization server, and no answer, with status_on_error.
    expect(ENVOY.statusOnError).toBe(503);
    // ... as a local reply without Gatehouse's headers: the local-reply mapper adds Retry-After.
    expect(ENVOY.localReply).toEqual({ status: 503, addsHeaders: ['retry-after'] });
  });

  it('Traefik: trustForwardHeader stated false, the check at /api/v1/session/check/ with the cookie', () => {
    expect(TRAEFIK.trustForwardHeader).toBe(false);
    expect(TRAEFIK.checkPath).toBe('/api/v1/session/check/');
    expect(TRAEFIK.authRequestHeaders).toEqual(
      expect.arrayContaining(['Cookie', 'Origin', 'Sec-Fetch-Site']),
    );
  });
});

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

    describe(`Envoy ext_authz (path_prefix ${ENVOY.pathPrefix})`, () => {
      const envoy = (method: string, path: string, headers: Array<[string, string]> = []) =>
        envoyCheck(gatehouse.url, method, path, headers);

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
        // The method is Envoy's own: a header saying otherwise changes nothing, even if a
        // configuration let it through (the recipe's allowed_headers do not).
        expectRefused(
          await rawRequest(gatehouse.url, 'POST', `${ENVOY.pathPrefix}/orders`, [
            ['host', APP],
            ['content-length', '0'],
            ['x-forwarded-proto', 'https'],
            ['cookie', cookie],
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

    describe(`Traefik forwardAuth (address ${TRAEFIK.checkPath}, trustForwardHeader: ${TRAEFIK.trustForwardHeader})`, () => {
      const traefik = (method: string, headers: Array<[string, string]>, checkMethod = 'GET') =>
        traefikCheck(gatehouse.url, method, headers, { checkMethod });

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

describe('Traefik behind a load balancer that ends TLS (docs/gateways.md, "Behind a TLS load balancer")', () => {
  let gatehouse: TestServer;
  let trusting: TestServer;
  let cookie: string;
  let trustingCookie: string;

  async function loggedIn(server: TestServer): Promise<string> {
    await seedUser(server, { username: 'ann', password: PASSWORD, userId: 'u-ann', tenantId: 't1' });
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    return `sessionid=${client.session}`;
  }

  beforeAll(async () => {
    gatehouse = await startTestServer({ env: { TRUSTED_ORIGINS: PORTAL } });
    trusting = await startTestServer({ env: { TRUSTED_ORIGINS: `${PORTAL},https://${APP}` } });
    cookie = await loggedIn(gatehouse);
    trustingCookie = await loggedIn(trusting);
  });
  afterAll(async () => {
    await Promise.all([gatehouse?.close(), trusting?.close()]);
  });

  /** Traefik receives plain HTTP from the load balancer at 10.0.0.2. */
  const behindTls = (trustForwardHeader: boolean): Array<[string, string]> =>
    trustForwardHeader
      ? // The entry point trusts 10.0.0.2 (forwardedHeaders.trustedIPs) and keeps what it set;
        // the middleware keeps them and adds the method and URI, which the load balancer did not send.
        [
          ['x-forwarded-for', '203.0.113.9, 10.0.0.2'],
          ['x-forwarded-proto', 'https'],
          ['x-forwarded-host', APP],
          ['x-forwarded-port', '443'],
          ['x-forwarded-method', 'POST'],
          ['x-forwarded-uri', '/orders'],
        ]
      : // Everything forwarded is deleted and set again from the plain-HTTP connection.
        [
          ['x-forwarded-for', '10.0.0.2'],
          ['x-forwarded-method', 'POST'],
          ['x-forwarded-proto', 'http'],
          ['x-forwarded-port', '80'],
          ['x-forwarded-host', APP],
          ['x-forwarded-uri', '/orders'],
        ];
  const sameOriginPost = (server: TestServer, session: string, trustForwardHeader: boolean) =>
    traefikCheck(
      server.url,
      'POST',
      [
        ['cookie', session],
        ['origin', `https://${APP}`],
        ['sec-fetch-site', 'same-origin'],
      ],
      { forwarded: behindTls(trustForwardHeader) },
    );

  it('with trustForwardHeader: false, a same-origin POST reads as coming from http:// and is refused', async () => {
    const answer = await sameOriginPost(gatehouse, cookie, false);
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: 'ORIGIN_REJECTED' });
  });

  it("with trustForwardHeader: false and the application's https origin in TRUSTED_ORIGINS, it passes", async () => {
    const answer = await sameOriginPost(trusting, trustingCookie, false);
    expect(answer.status).toBe(204);
    expect(answer.headers['gatehouse-user-id']).toBe('u-ann');
  });

  it('with the load balancer trusted (entry point trustedIPs, trustForwardHeader: true), it passes', async () => {
    const answer = await sameOriginPost(gatehouse, cookie, true);
    expect(answer.status).toBe(204);
    expect(answer.headers['gatehouse-user-id']).toBe('u-ann');
    // A foreign site's POST is still refused: the Origin rule reads the load balancer's https.
    const foreign = await traefikCheck(
      gatehouse.url,
      'POST',
      [
        ['cookie', cookie],
        ['origin', 'https://evil.example'],
      ],
      { forwarded: behindTls(true) },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'ORIGIN_REJECTED' });
  });
});

/**
 * The session store down while Gatehouse runs (a real redis-server, killed): Gatehouse answers
 * each gateway's check 503 SERVICE_UNAVAILABLE with Retry-After, never a 401 (which a portal takes
 * for a logout) and never a grant. Traefik passes that answer to the client as it is; Envoy turns
 * it (every 5xx) into its `status_on_error`, 503 in the recipe, with the recipe's Retry-After.
 */
describe('the requests gateways send while the session store is down [redis]', () => {
  let redis: TestRedis;
  let gatehouse: TestServer;
  let cookie: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    gatehouse = await startTestServer({
      env: { SESSION_STORE: 'redis', REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '500' },
    });
    await seedUser(gatehouse, { username: 'ann', password: PASSWORD, userId: 'u-ann', tenantId: 't1' });
    const client = new TestClient(gatehouse.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    cookie = `sessionid=${client.session}`;
    // Live while the store answers, through both gateways' requests.
    expect((await envoyCheck(gatehouse.url, 'GET', '/orders', [['cookie', cookie]])).status).toBe(200);
    expect((await traefikCheck(gatehouse.url, 'GET', [['cookie', cookie]])).status).toBe(204);
    await redis.kill();
  });
  afterAll(async () => {
    // Back before Gatehouse closes: its Redis client quits cleanly only from a server that answers.
    await redis?.start();
    await gatehouse?.close();
    await redis?.close();
  });

  function expectUnavailable(answer: RawAnswer) {
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.headers['gatehouse-user-id']).toBeUndefined();
  }

  it("answers Envoy's check 503 with Retry-After, in any method", async () => {
    for (const method of ['GET', 'POST', 'OPTIONS']) {
      expectUnavailable(
        await envoyCheck(gatehouse.url, method, '/orders/42', [
          ['cookie', cookie],
          ['origin', `https://${APP}`],
        ]),
      );
    }
  });

  it("answers Traefik's check 503 with Retry-After, which Traefik hands to the client as it is", async () => {
    expectUnavailable(await traefikCheck(gatehouse.url, 'GET', [['cookie', cookie]]));
    expectUnavailable(
      await traefikCheck(gatehouse.url, 'DELETE', [
        ['cookie', cookie],
        ['origin', `https://${APP}`],
      ]),
    );
  });
});
