/**
 * An OpenID provider that misbehaves, seen through POST /api/v1/openid/login/: one that stalls
 * before discovery, and one that answers garbage (not JSON, truncated JSON, the wrong content
 * type, a body that never ends, a reset) on its discovery, token and JWKS endpoints. Every case ends
 * with an SSO code, never a 500 or a hang, after one request to the misbehaving endpoint.
 *
 * No elapsed-time bound: a time-out is shown by timer order. The stalled provider answers, on a
 * timer of this process (the service runs in it too), well after OIDC_TIMEOUT_MS, and its late
 * answer is JSON of the wrong shape: a time-out that did not fire lets it through, and the answer
 * is SSO_INVALID instead of SSO_UNREACHABLE. Load delays both timers alike.
 *
 * The misbehaving provider is a tiny hand-made HTTP server (the point is its garbage); the happy
 * path runs on the real provider (test/support/oidc/test-provider.ts), which takes over the same
 * port at the end: the service recovers from the broken provider without a restart.
 * The stalled token endpoint and the closed port are covered in test/sso/sso-login-http.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonce, REDIRECT_URI, ssoLogin } from '../fixtures/sso/harness.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';
import { report, timed } from './support/timing.js';

const TIMEOUT_MS = 1000;
/** When a stalled provider answers after all: due well after the service's time-out. */
const LATE_MS = TIMEOUT_MS * 3;
/** The client of test/support/oidc/test-provider.ts, so the real provider takes over later. */
const CLIENT_ID = 'gatehouse';
const CLIENT_SECRET = 'gatehouse-secret-0123456789abcdef';

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

/** JSON of the wrong shape for every endpoint (a late answer that got through is SSO_INVALID). */
const WRONG_SHAPE = `[1${' '.repeat(4093)}]`;

/** Runs `then` after LATE_MS, unless the client has gone (its time-out fired) by then. */
function later(res: ServerResponse, then: () => void): void {
  const timer = setTimeout(() => {
    if (!res.destroyed) then();
  }, LATE_MS);
  res.once('close', () => clearTimeout(timer));
}

/** Answers JSON `body` as the provider would, or with `contentType`. */
const answer =
  (body: string, contentType = 'application/json; charset=utf-8', status = 200): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

const BEHAVIOURS: Record<string, Behaviour> = {
  'an HTML page': answer('<html><body>Service temporarily unavailable</body></html>', 'text/html'),
  'truncated JSON': answer('{"issuer":"http://127.0.0.1","token_endpoint":"http://127'),
  'JSON under the wrong content type': answer('{"issuer":"x"}', 'text/plain'),
  'an empty body': answer(''),
  'a JSON array': answer('[1,2,3]'),
  'a body that never ends': (_req, res) => {
    // Headers promise 4 KiB, 20 bytes come, then nothing until after the time-out: the read must
    // time out.
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
    res.write(WRONG_SHAPE.slice(0, 20));
    later(res, () => res.end(WRONG_SHAPE.slice(20)));
  },
  'a reset connection': (req) => req.socket.resetAndDestroy(),
  'a body cut short by a closed connection': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
    res.write('{"issuer":"http://127', () => res.socket?.destroy());
  },
  'no answer at all (stalled)': (req, res) => later(res, () => answer(WRONG_SHAPE)(req, res)),
};

const UNREACHABLE = { status: 502, code: 'SSO_UNREACHABLE' };
const INVALID = { status: 401, code: 'SSO_INVALID' };

/**
 * What each answer is reported as. Nothing at all, a time-out, a cut connection or a body that is
 * not JSON by its content type (an error page of something in between): SSO_UNREACHABLE. A JSON
 * answer that does not parse or is not what the endpoint must return: SSO_INVALID (the provider
 * answered; its answer failed validation). The token endpoint's body is parsed whatever its
 * content type, so JSON under text/plain is judged by its content there.
 */
type Endpoint = 'discovery' | 'token' | 'jwks';

/** The JWKS endpoint (fetched by Gatehouse itself to verify the ID token) follows the discovery rule. */
const EXPECTED: Record<string, Record<Endpoint, { status: number; code: string }>> = {
  'an HTML page': { discovery: UNREACHABLE, token: UNREACHABLE, jwks: UNREACHABLE },
  'truncated JSON': { discovery: INVALID, token: INVALID, jwks: INVALID },
  'JSON under the wrong content type': { discovery: UNREACHABLE, token: INVALID, jwks: UNREACHABLE },
  'an empty body': { discovery: INVALID, token: INVALID, jwks: INVALID },
  'a JSON array': { discovery: INVALID, token: INVALID, jwks: INVALID },
  'a body that never ends': { discovery: UNREACHABLE, token: UNREACHABLE, jwks: UNREACHABLE },
  'a reset connection': { discovery: UNREACHABLE, token: UNREACHABLE, jwks: UNREACHABLE },
  'a body cut short by a closed connection': {
    discovery: UNREACHABLE,
    token: UNREACHABLE,
    jwks: UNREACHABLE,
  },
  'no answer at all (stalled)': { discovery: UNREACHABLE, token: UNREACHABLE, jwks: UNREACHABLE },
};

describe('a misbehaving OpenID provider [pglite]', () => {
  let garbage: Server;
  let issuer: string;
  let port: number;
  let discovery: Behaviour;
  let token: Behaviour;
  let jwks: Behaviour;
  let server: TestServer;
  let tp: TestProvider | undefined;
  /** Requests each endpoint received. */
  const asked: Record<Endpoint, number> = { discovery: 0, token: 0, jwks: 0 };
  const figures: string[] = [];

  const metadata = () =>
    JSON.stringify({
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });

  beforeAll(async () => {
    garbage = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        asked.discovery += 1;
        return discovery(req, res);
      }
      if (req.url === '/token' && req.method === 'POST') {
        asked.token += 1;
        req.resume();
        return token(req, res);
      }
      if (req.url === '/jwks') {
        asked.jwks += 1;
        return jwks(req, res);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    port = (garbage.address() as AddressInfo).port;
    issuer = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      env: {
        OIDC_ISSUER: issuer,
        OIDC_CLIENT_ID: CLIENT_ID,
        OIDC_CLIENT_SECRET: CLIENT_SECRET,
        OIDC_REDIRECT_URIS: REDIRECT_URI,
        OIDC_ALLOW_INSECURE_HTTP: 'true',
        OIDC_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
    await seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });
  });

  afterAll(async () => {
    report(`OpenID provider faults (OIDC_TIMEOUT_MS=${TIMEOUT_MS}): ${figures.join('; ')}`);
    await server?.close();
    garbage.closeAllConnections();
    await new Promise<void>((resolve) => garbage.close(() => resolve()));
    await tp?.close();
  });

  /**
   * A token answer whose ID token passes openid-client's claim checks (it does not verify
   * signatures): Gatehouse then fetches the JWKS to verify the signature itself.
   */
  const tokenAnswer = (expectedNonce: string): Behaviour => {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = [
      part({ alg: 'RS256', typ: 'JWT', kid: 'k-not-yet-known' }),
      part({ iss: issuer, aud: CLIENT_ID, sub: 'gina', nonce: expectedNonce, iat: now, exp: now + 300 }),
      Buffer.from('not-a-signature').toString('base64url'),
    ].join('.');
    return answer(
      JSON.stringify({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken }),
    );
  };

  async function attempt(where: Endpoint, name: string, sentNonce = nonce()): Promise<void> {
    const askedBefore = asked[where];
    const { value: response, ms } = await timed(() =>
      new TestClient(server.url).post('/api/v1/openid/login/', {
        nonce: sentNonce,
        authorization_code: 'a-code',
        redirect_uri: REDIRECT_URI,
      }),
    );
    figures.push(`${where} ${name}: ${response.status} ${response.body?.code} in ${ms} ms`);
    expect({ status: response.status, code: response.body?.code }).toEqual(EXPECTED[name]![where]);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.text).not.toContain('gatehouse-secret');
    expect(response.setCookies).toEqual([]);
    // Asked once: no retry (each one another wait for a stalled provider).
    expect(asked[where] - askedBefore).toBe(1);
  }

  describe('on the discovery endpoint', () => {
    for (const name of Object.keys(BEHAVIOURS)) {
      it(`reports ${name} within the time-out`, async () => {
        discovery = BEHAVIOURS[name]!;
        await attempt('discovery', name);
      });
    }
  });

  describe('on the token endpoint (discovery fine)', () => {
    for (const name of Object.keys(BEHAVIOURS)) {
      it(`reports ${name} within the time-out`, async () => {
        discovery = answer(metadata());
        token = BEHAVIOURS[name]!;
        await attempt('token', name);
      });
    }
  });

  describe('on the JWKS endpoint (discovery and token fine)', () => {
    for (const name of Object.keys(BEHAVIOURS)) {
      it(`reports ${name} within the time-out`, async () => {
        const sentNonce = nonce();
        discovery = answer(metadata());
        token = tokenAnswer(sentNonce);
        jwks = BEHAVIOURS[name]!;
        await attempt('jwks', name, sentNonce);
      });
    }
  });

  it('logs in once the real provider answers on that address, without a restart', async () => {
    garbage.closeAllConnections();
    await new Promise<void>((resolve) => garbage.close(() => resolve()));
    tp = await startTestProvider({
      port,
      redirectUris: [REDIRECT_URI],
      accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } },
    });
    expect(tp.issuer).toBe(issuer);
    const response = await ssoLogin(new TestClient(server.url), tp, { accountId: 'gina' });
    expect(response.status).toBe(200);
    expect(response.body.profile.username).toBe('gina');
  });
});
