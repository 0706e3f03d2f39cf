/**
 * The SSO side of second factors (contract 3b, "Policy" and "Step-up"): every SSO session carries
 * `sso` plus the ID token's `amr` and its `auth_time`; a provider that must vouch for a second
 * factor (OIDC_REQUIRE_MFA, with OIDC_ACR_VALUES) refuses a token that vouches for none.
 * Real oidc-provider, real code exchange; its ID tokens are re-signed with its own key with the
 * `amr`, `acr` and `auth_time` a test needs (oidc-provider's dev login sets none of them).
 * The session's `auth` is read from the service's store. Sessions in memory: this suite is about
 * the provider's token, not storage (every store keeps `auth`: the shipped store suites prove it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { expectProblem } from '../support/expect-problem.js';
import {
  decodeJwtPayload,
  signJwt,
  startTestProvider,
  type TestProvider,
} from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const ACCOUNTS = ['sam', 'sue', 'tom', 'una', 'val', 'wes', 'xen'];

let tp: TestProvider;
/** The environment's provider, requiring nothing. */
let plain: TestServer;
/** The environment's provider with OIDC_REQUIRE_MFA=true and OIDC_ACR_VALUES. */
let strict: TestServer;

/** The provider's ID tokens carry these claims (re-signed with its own key); undefined removes one. */
function withClaims(claims: Record<string, unknown>): void {
  tp.hooks.idToken = (idToken) => {
    const payload: Record<string, unknown> = { ...decodeJwtPayload(idToken), ...claims };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete payload[name];
    return signJwt({}, payload, tp.signingKey);
  };
}

async function storedAuthOf(server: TestServer, username: string) {
  const user = (await server.gatehouse.store.users.findByUsername(username))!;
  const sessions = await server.gatehouse.store.sessions.listForUser(user.userId);
  return { sessions, auth: sessions.at(-1)?.auth };
}

beforeAll(async () => {
  tp = await startTestProvider({
    redirectUris: [REDIRECT_URI],
    accounts: Object.fromEntries(
      ACCOUNTS.map((name) => [name, { preferred_username: name, groups: ['g1'] }]),
    ),
  });
  plain = await startTestServer({ store: 'memory', env: ssoEnv(tp) });
  strict = await startTestServer({
    store: 'memory',
    env: ssoEnv(tp, { OIDC_REQUIRE_MFA: 'true', OIDC_ACR_VALUES: 'urn:example:gold, urn:example:platinum' }),
  });
  for (const server of [plain, strict]) {
    for (const username of ACCOUNTS) {
      await seedUser(server, { username, userLevel: 8, tenantId: 't1', groupId: 'g1' });
    }
  }
});
afterAll(async () => {
  await plain?.close();
  await strict?.close();
  await tp?.close();
});
afterEach(() => {
  tp.resetHooks();
});

describe('SSO sessions remember how the provider authenticated the user', () => {
  it("carry sso plus the token's amr and its auth_time", async () => {
    const authTime = Math.floor(Date.now() / 1000) - 120;
    withClaims({ amr: ['pwd', 'otp'], auth_time: authTime });
    const response = await ssoLogin(new TestClient(plain.url), tp, { accountId: 'sam' });
    expect(response.status).toBe(200);
    const { auth } = await storedAuthOf(plain, 'sam');
    expect(auth).toEqual({ stage: 'full', amr: ['sso', 'pwd', 'otp'], authTime: new Date(authTime * 1000) });
  });

  it('keep only string amr values of a safe form, at most 10; an auth_time in the future is now', async () => {
    const junk = [
      'pwd',
      42,
      'x'.repeat(33),
      'a,b',
      'otp',
      'pwd',
      'sso',
      ...Array.from({ length: 12 }, (_, i) => `m${i}`),
    ];
    withClaims({ amr: junk, auth_time: Math.floor(Date.now() / 1000) + 3600 });
    expect((await ssoLogin(new TestClient(plain.url), tp, { accountId: 'sue' })).status).toBe(200);
    const { auth } = await storedAuthOf(plain, 'sue');
    expect(auth?.amr).toEqual(['sso', 'pwd', 'otp', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    // The service's clock (a test clock, standing still).
    expect(auth?.authTime).toEqual(plain.clock.now());
  });

  it('count an auth_time older than the session lifetime as that old, no older', async () => {
    withClaims({ amr: ['pwd'], auth_time: 0 });
    expect((await ssoLogin(new TestClient(plain.url), tp, { accountId: 'xen' })).status).toBe(200);
    const lifetimeMs = 43_200 * 1000; // SESSION_ABSOLUTE_TIMEOUT_S, default
    expect((await storedAuthOf(plain, 'xen')).auth?.authTime).toEqual(
      new Date(plain.clock.now().getTime() - lifetimeMs),
    );
  });
});

describe('a provider that must vouch for a second factor (OIDC_REQUIRE_MFA, OIDC_ACR_VALUES)', () => {
  it('refuses a token without amr: 401 SSO_INVALID, no session, audited', async () => {
    withClaims({ amr: undefined, acr: undefined });
    expectProblem(await ssoLogin(new TestClient(strict.url), tp, { accountId: 'tom' }), 401, 'SSO_INVALID');
    withClaims({ amr: ['pwd'], acr: 'urn:example:bronze' });
    expectProblem(await ssoLogin(new TestClient(strict.url), tp, { accountId: 'tom' }), 401, 'SSO_INVALID');
    const { sessions } = await storedAuthOf(strict, 'tom');
    expect(sessions).toEqual([]);
    const trail = await strict.gatehouse.store.audit.listSince(new Date(0), 1000);
    expect(trail.filter((event) => event.reason === 'sso_mfa_missing')).toEqual([
      expect.objectContaining({ event: 'login', outcome: 'failure', method: 'sso', providerId: 'default' }),
      expect.objectContaining({ event: 'login', outcome: 'failure', method: 'sso', providerId: 'default' }),
    ]);
  });

  it("accepts a token whose amr names a second factor ['pwd', 'otp']", async () => {
    withClaims({ amr: ['pwd', 'otp'] });
    expect((await ssoLogin(new TestClient(strict.url), tp, { accountId: 'una' })).status).toBe(200);
    expect((await storedAuthOf(strict, 'una')).auth?.amr).toEqual(['sso', 'pwd', 'otp']);
  });

  it("accepts a token whose acr is one of the acr values, and marks the session 'mfa'", async () => {
    withClaims({ amr: ['pwd'], acr: 'urn:example:platinum' });
    expect((await ssoLogin(new TestClient(strict.url), tp, { accountId: 'val' })).status).toBe(200);
    expect((await storedAuthOf(strict, 'val')).auth?.amr).toEqual(['sso', 'pwd', 'mfa']);
  });

  it('leaves the same token alone where nothing is required', async () => {
    withClaims({ amr: undefined, acr: undefined });
    expect((await ssoLogin(new TestClient(plain.url), tp, { accountId: 'wes' })).status).toBe(200);
    expect((await storedAuthOf(plain, 'wes')).auth?.amr).toEqual(['sso']);
  });
});
