/**
 * The OpenID Foundation's relying-party conformance modules that apply to a server-side code
 * exchange, rebuilt as our own tests. Each test is named after its module (the module's testName
 * in the OpenID conformance suite; docs/security.md lists every module of the plans, with why the
 * others do not apply). They run over HTTP (Koa), against a real oidc-provider whose
 * keys this file chooses: an RSA signing key that rotates, a second RSA key and a P-256 key.
 *
 * What oidc-provider produces itself: the authorization codes, the ID tokens (RS256 for the
 * `gatehouse` client, ES256 for a client registered with ES256), the key rotation, the discovery
 * document, the JWKS, and the back-channel logout token of the positive logout module.
 * What a hook rewrites on the provider's way out (oidc-provider middleware, `tp.hooks`), because
 * oidc-provider will not produce it: ID tokens signed with `none`, HS256, a bad signature, another
 * algorithm, without `kid`, or with a wrong or missing `iss`, `aud`, `sub`, `iat` or `nonce`; a JWKS
 * whose keys carry no `kid`; a discovery document naming another issuer or other endpoint URLs.
 * The malformed back-channel logout tokens are signed by hand (`tp.signLogoutToken`) with the
 * provider's own keys, as the provider would send them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { nonce, REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { openTestStore, type ServiceStoreKind } from '../support/databases.js';
import {
  BACKCHANNEL_LOGOUT_EVENT,
  decodeJwtPayload,
  type ExtraTestClient,
  generateSigningKey,
  type SigningKey,
  signJwt,
  startTestProvider,
  type TestProvider,
  tamperSignature,
  type UnsafeSigningKey,
} from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const SECOND_RSA_KEY = generateSigningKey('RS256');
const P256_KEY = generateSigningKey('ES256');
/**
 * The ES256 client. Its id and secret hold characters that RFC 6749 2.3.1 form-urlencodes inside
 * the Basic header (`:`, `%`, `+`, `&`, `=`, space): a client that skipped the encoding would be
 * refused by the provider.
 */
const ES256_CLIENT: ExtraTestClient = {
  clientId: 'gatehouse:es256/ +%41&=',
  clientSecret: 'p%41ss:w+rd&= 0123456789abcdef!',
  clientAuth: 'client_secret_basic',
  redirectUris: [REDIRECT_URI],
  idTokenAlg: 'ES256',
};

let tp: TestProvider;

beforeAll(async () => {
  tp = await startTestProvider({
    redirectUris: [REDIRECT_URI],
    accounts: { gina: { preferred_username: 'gina', groups: ['g1'] } },
    additionalKeys: [SECOND_RSA_KEY, P256_KEY],
    extraClients: [ES256_CLIENT],
  });
});
afterAll(async () => {
  await tp?.close();
});
afterEach(() => {
  tp.resetHooks();
});

type Claims = Record<string, unknown>;

/** The provider's ID tokens are re-signed with `key`, their claims changed by `change`. */
function resignIdTokens(
  change: (claims: Claims) => Claims,
  key: SigningKey | UnsafeSigningKey = tp.signingKey,
  header: Record<string, unknown> = {},
): void {
  tp.hooks.idToken = (idToken) => signJwt(header, change(decodeJwtPayload(idToken)), key);
}

/** The provider's ID tokens pass through unchanged; the returned list holds each one. */
function recordIdTokens(): string[] {
  const seen: string[] = [];
  tp.hooks.idToken = (idToken) => {
    seen.push(idToken);
    return idToken;
  };
  return seen;
}

const jwtHeader = (jwt: string): Claims =>
  JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8'));

const publicKeyWithout = (key: SigningKey, ...members: string[]) =>
  Object.fromEntries(Object.entries(key.publicJwk).filter(([name]) => !members.includes(name)));

const jwksRequests = () => tp.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/jwks')).length;
const tokenRequests = () => tp.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/token'));

/**
 * Koa alone: the modules are about what the relying party accepts, one use case and one adapter
 * under either transport; the SSO routes are on Fastify in sso-login-http.test.ts and openapi.test.ts.
 */
const TARGETS: readonly ServiceStoreKind[] = ['pglite'];

for (const target of TARGETS) {
  describe(`OpenID RP conformance modules [${target}]`, () => {
    /** Expects RS256 from the `gatehouse` client (the default OIDC_ID_TOKEN_ALG). */
    let rs256: TestServer;
    /** Expects ES256 from the ES256 client (OIDC_ID_TOKEN_ALG=ES256). */
    let es256: TestServer;
    /** Services started with nothing cached; they share the RS256 service's database. */
    const freshServices: TestServer[] = [];
    let database: SqlClient;

    const seed = (server: TestServer) =>
      seedUser(server, { username: 'gina', userLevel: 8, tenantId: 't1', groupId: 'g1' });

    beforeAll(async () => {
      database = await openTestStore('pglite');
      rs256 = await startTestServer({ store: target, env: ssoEnv(tp), sqlClient: database });
      es256 = await startTestServer({
        store: target,
        env: ssoEnv(tp, {
          OIDC_CLIENT_ID: ES256_CLIENT.clientId,
          OIDC_CLIENT_SECRET: ES256_CLIENT.clientSecret!,
          OIDC_ID_TOKEN_ALG: 'ES256',
        }),
      });
      await seed(rs256);
      await seed(es256);
    });
    afterAll(async () => {
      for (const server of freshServices) await server.close();
      await rs256?.close();
      await es256?.close();
    });

    /** A service that has fetched nothing from the provider yet (no discovery, no keys). */
    async function freshService(): Promise<TestServer> {
      const server = await startTestServer({ store: target, env: ssoEnv(tp), sqlClient: database });
      freshServices.push(server);
      return server;
    }

    async function login(server: TestServer, options: { loginNonce?: string } = {}) {
      const client = new TestClient(server.url);
      const response = await ssoLogin(client, tp, {
        accountId: 'gina',
        ...(server === es256 ? { clientId: ES256_CLIENT.clientId } : {}),
        ...options,
      });
      return Object.assign(response, { session: client.session });
    }

    async function expectAccepted(server: TestServer): Promise<string> {
      const response = await login(server);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.session).toBeTruthy();
      expect(await sessionStatus(server, response.session!), 'the new session answers').toBe(200);
      return response.session!;
    }

    async function expectRefused(server: TestServer, options: { loginNonce?: string } = {}): Promise<void> {
      const response = await login(server, options);
      expect(response.status, JSON.stringify(response.body)).toBe(401);
      expect(response.body).toMatchObject({ code: 'SSO_INVALID' });
      expect(response.session).toBeUndefined();
    }

    async function sessionStatus(server: TestServer, session: string): Promise<number> {
      return (await new TestClient(server.url).get('/api/v1/session/', { cookie: `sessionid=${session}` }))
        .status;
    }

    function postLogoutToken(server: TestServer, logoutToken: string) {
      return new TestClient(server.url).request('POST', '/api/v1/openid/backchannel-logout/', {
        body: new URLSearchParams({ logout_token: logoutToken }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    }

    /** A logout token the service must answer 400, leaving gina's session alive. */
    async function expectLogoutRefused(server: TestServer, logoutToken: string): Promise<void> {
      const session = await expectAccepted(server);
      const response = await postLogoutToken(server, logoutToken);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'INVALID_REQUEST' });
      expect(await sessionStatus(server, session)).toBe(200);
    }

    /** A logout token the service must accept, ending gina's session. */
    async function expectLogoutAccepted(server: TestServer, logoutToken: string): Promise<void> {
      const session = await expectAccepted(server);
      const response = await postLogoutToken(server, logoutToken);
      expect(response.status).toBe(200);
      expect(await sessionStatus(server, session)).toBe(401);
    }

    describe('Basic and comprehensive plans: the ID token', () => {
      it('oidcc-client-test: a code from the provider becomes a session', async () => {
        await expectAccepted(rs256);
      });

      it('oidcc-client-test-idtoken-sig-rs256: an ID token signed RS256 under the provider key is accepted', async () => {
        const seen = recordIdTokens();
        await expectAccepted(rs256);
        expect(jwtHeader(seen.at(-1)!)).toMatchObject({ alg: 'RS256', kid: tp.signingKey.kid });
      });

      it('oidcc-client-test-idtoken-sig-rs256: with RS256 expected, ES256 under a key the provider publishes is refused', async () => {
        resignIdTokens((claims) => claims, P256_KEY);
        await expectRefused(rs256);
      });

      it('oidcc-client-test-idtoken-sig-rs256: with RS256 expected, PS256 under the provider RSA key is refused', async () => {
        resignIdTokens((claims) => claims, { ...tp.signingKey, alg: 'PS256' });
        await expectRefused(rs256);
      });

      it('oidcc-client-test-idtoken-sig-none: an unsigned ID token is refused', async () => {
        resignIdTokens((claims) => claims, { alg: 'none' });
        await expectRefused(rs256);
      });

      it('oidcc-client-test-invalid-sig-rs256: an RS256 ID token with a bad signature is refused', async () => {
        tp.hooks.idToken = tamperSignature;
        await expectRefused(rs256);
      });

      it('oidcc-client-test-invalid-sig-hs256: HS256 is refused, even a valid MAC under the client secret', async () => {
        const secret = { alg: 'HS256' as const, secret: tp.clients.gatehouse.clientSecret! };
        resignIdTokens((claims) => claims, secret);
        await expectRefused(rs256);
        tp.hooks.idToken = (idToken) => tamperSignature(signJwt({}, decodeJwtPayload(idToken), secret));
        await expectRefused(rs256);
      });

      it('oidcc-client-test-invalid-sig-es256: with ES256 expected, an ES256 ID token with a bad signature is refused', async () => {
        tp.hooks.idToken = tamperSignature;
        await expectRefused(es256);
      });

      it('oidcc-client-test-invalid-sig-es256: with ES256 expected, the provider ES256 ID token is accepted', async () => {
        const seen = recordIdTokens();
        await expectAccepted(es256);
        expect(jwtHeader(seen.at(-1)!)).toMatchObject({ alg: 'ES256', kid: P256_KEY.kid });
      });

      it('oidcc-client-test-invalid-sig-es256: with ES256 expected, RS256 under the provider RSA key is refused', async () => {
        resignIdTokens((claims) => claims, tp.signingKey);
        await expectRefused(es256);
      });

      const without =
        (name: string) =>
        ({ [name]: _dropped, ...claims }: Claims): Claims =>
          claims;
      it.each<[string, Array<(claims: Claims) => Claims>]>([
        [
          'oidcc-client-test-invalid-iss: an ID token from another issuer, or none, is refused',
          [(claims) => ({ ...claims, iss: `${tp.issuer}/elsewhere` }), without('iss')],
        ],
        ['oidcc-client-test-missing-aud: an ID token without aud is refused', [without('aud')]],
        [
          'oidcc-client-test-invalid-aud: an ID token for another audience, or an aud array without this client, is refused',
          [
            (claims) => ({ ...claims, aud: 'other-app' }),
            (claims) => ({ ...claims, aud: ['other-app', 'third'] }),
          ],
        ],
        ['oidcc-client-test-missing-sub: an ID token without sub is refused', [without('sub')]],
        ['oidcc-client-test-missing-iat: an ID token without iat is refused', [without('iat')]],
      ])('%s', async (_module, changes) => {
        for (const change of changes) {
          resignIdTokens(change);
          await expectRefused(rs256);
        }
      });

      it('oidcc-client-test-invalid-aud: several audiences without azp are refused; with azp naming this client, accepted', async () => {
        resignIdTokens((claims) => ({ ...without('azp')(claims), aud: [claims.aud, 'other-app'] }));
        await expectRefused(rs256);
        resignIdTokens((claims) => ({ ...claims, aud: [claims.aud, 'other-app'], azp: 'other-app' }));
        await expectRefused(rs256);
        resignIdTokens((claims) => ({ ...claims, aud: [claims.aud, 'other-app'], azp: claims.aud }));
        await expectAccepted(rs256);
      });

      it('oidcc-client-test-nonce-invalid: an ID token whose nonce is not the request nonce is refused', async () => {
        // The provider signs the nonce of the authorization request; the login names another.
        await expectRefused(rs256, { loginNonce: nonce() });
        resignIdTokens(without('nonce'));
        await expectRefused(rs256);
      });

      it('oidcc-client-test-kid-absent-single-jwks: without kid, the single matching key verifies the ID token', async () => {
        // As the module's JWKS: one key per type, none with kid or alg.
        const okp = generateSigningKey('EdDSA');
        tp.hooks.jwks = () => ({
          keys: [tp.signingKey, P256_KEY, okp].map((key) => publicKeyWithout(key, 'kid', 'alg')),
        });
        resignIdTokens((claims) => claims, tp.signingKey, { kid: undefined });
        await expectAccepted(await freshService());
      });

      it('oidcc-client-test-kid-absent-multiple-jwks: without kid, each RSA key of the JWKS is tried', async () => {
        const third = generateSigningKey('RS256');
        tp.hooks.jwks = () => ({
          keys: [SECOND_RSA_KEY, third, tp.signingKey, P256_KEY].map((key) =>
            publicKeyWithout(key, 'kid', 'alg'),
          ),
        });
        resignIdTokens((claims) => claims, tp.signingKey, { kid: undefined });
        await expectAccepted(await freshService());
      });
    });

    describe('Config plan: discovery and signing keys', () => {
      it.each([
        [
          'oidcc-client-test-discovery-openid-config: the token endpoint is the discovered one',
          'token_endpoint',
          '/token',
        ],
        [
          'oidcc-client-test-discovery-jwks-uri-keys: the keys come from the discovered jwks_uri',
          'jwks_uri',
          '/jwks',
        ],
      ])('%s', async (_module, member, path) => {
        // Each run moves the endpoint to a new URL (a query the provider ignores) that only the
        // discovery document tells.
        const marker = nonce();
        tp.hooks.discovery = (metadata) => ({
          ...metadata,
          [member]: `${metadata[member] as string}?run=${marker}`,
        });
        await expectAccepted(await freshService());
        expect(tp.requests.some((r) => r.url === `${path}?run=${marker}`)).toBe(true);
      });

      it('oidcc-client-test-discovery-issuer-mismatch: a discovery document naming another issuer is refused', async () => {
        tp.hooks.discovery = (metadata) => ({ ...metadata, issuer: `${tp.issuer}/elsewhere` });
        const server = await freshService();
        const before = tokenRequests().length;
        await expectRefused(server);
        // Refused before the code is spent at the token endpoint.
        expect(tokenRequests().length).toBe(before);
      });

      it('oidcc-client-test-signing-key-rotation: a new kid after the keys were cached refetches the JWKS', async () => {
        await expectAccepted(rs256);
        const retired = tp.signingKey;
        await tp.rotateKeys();
        expect(tp.signingKey.kid).not.toBe(retired.kid);
        const before = jwksRequests();
        const seen = recordIdTokens();
        await expectAccepted(rs256);
        expect(jwtHeader(seen.at(-1)!).kid).toBe(tp.signingKey.kid);
        expect(jwksRequests()).toBeGreaterThan(before);
      });

      it('oidcc-client-test-signing-key-rotation-just-before-signing: a key published as the token is signed is found', async () => {
        await expectAccepted(rs256);
        // The provider swaps its key for a new one (new kid) right when it signs the ID token.
        const rotated = generateSigningKey('RS256');
        const current = tp.signingKey.kid;
        tp.hooks.jwks = ({ keys }) => ({
          keys: [rotated.publicJwk, ...keys.filter((k) => k.kid !== current)],
        });
        resignIdTokens((claims) => claims, rotated);
        const before = jwksRequests();
        await expectAccepted(rs256);
        expect(jwksRequests()).toBeGreaterThan(before);
      });

      it('oidcc-client-test-signing-key-rotation: a token under the retired key is refused', async () => {
        await expectAccepted(rs256);
        const retired = tp.signingKey;
        await tp.rotateKeys();
        await expectAccepted(rs256);
        resignIdTokens((claims) => claims, retired);
        await expectRefused(rs256);
        tp.resetHooks();
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina' }, { key: retired }));
      });

      it('oidcc-client-test-client-secret-basic: the client id and secret are form-urlencoded in the Basic header', async () => {
        const before = tokenRequests().length;
        await expectAccepted(es256);
        const [request] = tokenRequests().slice(before);
        const credentials = /^Basic (.+)$/.exec(request?.authorization ?? '')?.[1];
        expect(credentials).toBeDefined();
        const [user, password, ...rest] = Buffer.from(credentials!, 'base64').toString('utf8').split(':');
        expect(rest).toEqual([]);
        const formDecode = (part: string) => decodeURIComponent(part.replace(/\+/g, '%20'));
        expect(user).toMatch(/^[A-Za-z0-9%+*_.~-]+$/);
        expect(password).toMatch(/^[A-Za-z0-9%+*_.~-]+$/);
        expect(formDecode(user!)).toBe(ES256_CLIENT.clientId);
        expect(formDecode(password!)).toBe(ES256_CLIENT.clientSecret);
      });
    });

    describe('Back-channel logout RP plan: the logout token', () => {
      it('oidcc-client-test-rp-backchannel-rpinitlogout: the provider logout token ends the session', async () => {
        const seen = recordIdTokens();
        const session = await expectAccepted(rs256);
        const sid = decodeJwtPayload(seen.at(-1)!).sid as string;
        expect(sid).toBeTruthy();
        await tp.sendBackchannelLogout({ sub: 'gina', sid });
        const logoutToken = tp.capturedLogoutTokens.at(-1)!;
        expect(decodeJwtPayload(logoutToken)).toMatchObject({ sub: 'gina', sid });
        expect((await postLogoutToken(rs256, logoutToken)).status).toBe(200);
        expect(await sessionStatus(rs256, session)).toBe(401);
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout: with ES256 expected, an ES256 logout token is accepted', async () => {
        await expectLogoutAccepted(
          es256,
          tp.signLogoutToken({ sub: 'gina', aud: ES256_CLIENT.clientId }, { key: P256_KEY }),
        );
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout: a logout token without sid and sub is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: undefined, sid: undefined }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout: an expired logout token is refused', async () => {
        const now = Math.floor(Date.now() / 1000);
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', iat: now - 60, exp: now - 45 }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout: a logout token replayed (same jti) is refused', async () => {
        const logoutToken = tp.signLogoutToken({ sub: 'gina' });
        await expectLogoutAccepted(rs256, logoutToken);
        await expectLogoutRefused(rs256, logoutToken);
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-alg-none: an unsigned logout token is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina' }, { key: { alg: 'none' } }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg: with RS256 expected, ES256 under a published key is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina' }, { key: P256_KEY }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg: with ES256 expected, RS256 under the provider key is refused', async () => {
        await expectLogoutRefused(
          es256,
          tp.signLogoutToken({ sub: 'gina', aud: ES256_CLIENT.clientId }, { key: tp.signingKey }),
        );
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg: HS256 under the client secret is refused', async () => {
        const secret = { alg: 'HS256' as const, secret: tp.clients.gatehouse.clientSecret! };
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina' }, { key: secret }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-no-event: a logout token without events is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', events: undefined }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-event: a logout token with another event is refused', async () => {
        const events = { 'http://schemas.openid.net/event/backchannel-logout-other': {} };
        expect(Object.keys(events)).not.toContain(BACKCHANNEL_LOGOUT_EVENT);
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', events }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-with-nonce: a logout token carrying a nonce is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', nonce: nonce() }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-aud: a logout token for another client is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', aud: 'other-app' }));
      });

      it('oidcc-client-test-rp-backchannel-rpinitlogout-wrong-iss: a logout token from another issuer is refused', async () => {
        await expectLogoutRefused(rs256, tp.signLogoutToken({ sub: 'gina', iss: `${tp.issuer}/elsewhere` }));
      });
    });
  });
}
