/**
 * Contract 6a end to end: one deployment serving three customers' real OpenID providers at once
 * (the environment's `default` and two registered ones, each with its own issuer, keys and
 * interpreter), two instances on one database. Every isolation rule has a test here that fails
 * without it: selection by redirect URI, tenants per provider, bindings namespaced by provider,
 * back-channel logout per provider, SSO logout at the session's provider, and offboarding seen by
 * the other instance.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { nonce, REDIRECT_URI, type SsoLoginOptions, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { openTestPglite } from '../support/databases.js';
import { ACME_REGISTRATION, GLOBEX_REGISTRATION } from '../support/oidc/customer-registrations.js';
import { registerTestProvider } from '../support/oidc/register-test-provider.js';
import {
  decodeJwtPayload,
  signJwt,
  startTestProvider,
  type TestProvider,
} from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const KEY = randomBytes(32).toString('base64');
const ACME_URI = `${REDIRECT_URI}?customer=acme`;
const GLOBEX_URI = `${REDIRECT_URI}?customer=globex`;
const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;

const sessionCookie = (response: { setCookies: string[] }) =>
  response.setCookies.find((line) => /^sessionid=[^;]/.test(line))?.split(';')[0] ?? '';

const sessionStatus = async (server: TestServer, cookie: string) =>
  (await new TestClient(server.url).get('/api/v1/session/', { cookie })).status;

/** What a request answered, as far as a refusal goes: its status and problem code. */
const statusAndCode = (response: { status: number; body?: { code?: unknown } | null }) => ({
  status: response.status,
  code: response.body?.code,
});

const auditTrail = (server: TestServer) => server.gatehouse.store.audit.listSince(new Date(0), 1000);

const requestsTo = (tp: TestProvider, path: string) =>
  tp.requests.filter((request) => request.url.startsWith(path)).length;

const backchannel = (server: TestServer, logoutToken: string) =>
  new TestClient(server.url).request('POST', '/api/v1/openid/backchannel-logout/', {
    body: new URLSearchParams({ logout_token: logoutToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

describe("three customers' providers in one deployment, two instances", () => {
  let client: SqlClient;
  let registry: SqlProviderRegistry;
  let environment: TestProvider;
  let acme: TestProvider;
  let globex: TestProvider;
  let one: TestServer;
  let two: TestServer;
  let env: Record<string, string>;

  /** An SSO login at `server` through Acme's provider, selected by Acme's redirect URI. */
  const acmeLogin = (server: TestServer, accountId: string, options: Partial<SsoLoginOptions> = {}) =>
    ssoLogin(new TestClient(server.url), acme, { accountId, redirectUri: ACME_URI, ...options });
  /** An SSO login at `server` through Globex's provider, selected by Globex's redirect URI. */
  const globexLogin = (server: TestServer, accountId: string) =>
    ssoLogin(new TestClient(server.url), globex, { accountId, redirectUri: GLOBEX_URI });

  beforeAll(async () => {
    [client, environment, acme, globex] = await Promise.all([
      openTestPglite(),
      startTestProvider({
        accounts: { 'ann-env': { preferred_username: 'ann', groups: ['g-acme'] } },
      }),
      startTestProvider({
        redirectUris: [ACME_URI],
        accounts: {
          'alice-1': { acme: { login: 'alice' }, acme_org: { unit_id: 'g-acme' } },
          'ann-acme': { acme: { login: 'ann' }, acme_org: { unit_id: 'g-acme' } },
          // Acme's provider asserting a user of Globex, group and username matching.
          'bob-at-acme': { acme: { login: 'bob' }, acme_org: { unit_id: 'g-globex' } },
        },
      }),
      startTestProvider({
        redirectUris: [GLOBEX_URI],
        signingAlg: 'ES256',
        accounts: { 'bob-1': { login_name: 'bob', groups: ['g-globex'] } },
      }),
    ]);
    const directory = new SqlDirectoryRepository(client);
    for (const tenant of ['t-acme', 't-globex']) await directory.addTenant(tenant, null);
    registry = new SqlProviderRegistry(client, AesTokenSealer.fromBase64(KEY, []));
    await registerTestProvider(registry, acme, { ...ACME_REGISTRATION, redirectUris: [ACME_URI] }, BY_ADMIN);
    await registerTestProvider(
      registry,
      globex,
      { ...GLOBEX_REGISTRATION, redirectUris: [GLOBEX_URI] },
      BY_ADMIN,
    );
    env = ssoEnv(environment, {
      TOKEN_ENCRYPTION_KEY: KEY,
      SSO_INTERPRETERS: 'acme=./test/fixtures/acme-interpreter/index.js',
      SSO_REGISTRY_POLL_MS: '100',
    });
    [one, two] = await Promise.all([
      startTestServer({ sqlClient: client, env }),
      startTestServer({ sqlClient: client, env }),
    ]);
    await seedUser(one, { username: 'alice', userLevel: 8, tenantId: 't-acme', groupId: 'g-acme' });
    await seedUser(one, { username: 'ann', userLevel: 8, tenantId: 't-acme', groupId: 'g-acme' });
    await seedUser(one, { username: 'bob', userLevel: 8, tenantId: 't-globex', groupId: 'g-globex' });
  });

  afterAll(async () => {
    // One database under both: closed once, by the first.
    await one?.close();
    await two?.close();
    await Promise.all([environment?.close(), acme?.close(), globex?.close()]);
  });

  it("serves each customer's SSO at once, each through its own provider and interpreter", async () => {
    const [ann, alice, bob] = await Promise.all([
      ssoLogin(new TestClient(one.url), environment, { accountId: 'ann-env' }),
      acmeLogin(two, 'alice-1'),
      globexLogin(one, 'bob-1'),
    ]);
    expect([ann.status, alice.status, bob.status]).toEqual([200, 200, 200]);
    expect(alice.body).toMatchObject({ ids: { tenant_id: 't-acme', group_id: 'g-acme' } });
    // The session list names the provider each SSO session came through.
    const listed = await new TestClient(one.url).get('/api/v1/sessions/', { cookie: sessionCookie(alice) });
    expect(listed.body).toMatchObject({ sessions: [{ method: 'sso', provider: 'acme', current: true }] });
    const bobs = await new TestClient(two.url).get('/api/v1/sessions/', { cookie: sessionCookie(bob) });
    expect(bobs.body).toMatchObject({ sessions: [{ provider: 'globex' }] });
    // SSO metrics carry the provider.
    const metrics = await two.gatehouse.metrics.render();
    expect(metrics).toContain('gatehouse_sso_logins_total{provider="acme",outcome="success"} 1');
    expect(metrics).toMatch(
      /gatehouse_oidc_request_duration_seconds_count\{provider="acme",endpoint="token"/,
    );
  });

  it("refuses a user of another customer's tenant, even with matching group and username", async () => {
    const response = await acmeLogin(one, 'bob-at-acme');
    expect(statusAndCode(response)).toEqual({
      status: 401,
      code: 'SSO_INVALID_GROUPID_AND_USERNAME',
    });
    expect(sessionCookie(response)).toBe('');
    const trail = await auditTrail(one);
    expect(trail).toContainEqual(
      expect.objectContaining({
        event: 'login',
        outcome: 'failure',
        reason: 'tenant_not_allowed_for_provider',
        providerId: 'acme',
        username: 'bob',
      }),
    );
  });

  it("sends a code only to the provider its redirect URI selects: Acme's code with Globex's URI never reaches Acme", async () => {
    const acmeTokenCalls = requestsTo(acme, '/token');
    const globexTokenCalls = requestsTo(globex, '/token');
    const sent = nonce();
    const { code } = await acme.issueCode({ accountId: 'alice-1', nonce: sent, redirectUri: ACME_URI });
    const response = await new TestClient(one.url).post('/api/v1/openid/login/', {
      nonce: sent,
      authorization_code: code,
      redirect_uri: GLOBEX_URI,
    });
    expect(statusAndCode(response)).toEqual({
      status: 401,
      code: 'SSO_REFUSED',
    });
    expect(requestsTo(acme, '/token')).toBe(acmeTokenCalls);
    expect(requestsTo(globex, '/token')).toBe(globexTokenCalls + 1);
  });

  it('answers 400 INVALID_REQUEST for a redirect URI of no provider, calling none', async () => {
    const before = [environment, acme, globex].map((tp) => tp.requests.length);
    const response = await new TestClient(one.url).post('/api/v1/openid/login/', {
      nonce: nonce(),
      authorization_code: 'code',
      redirect_uri: `${REDIRECT_URI}?customer=initech`,
    });
    expect(statusAndCode(response)).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
    });
    expect([environment, acme, globex].map((tp) => tp.requests.length)).toEqual(before);
  });

  it('binds an account to (provider, iss, sub): a user bound through one provider is refused through another', async () => {
    // ann logged in through the environment's provider in the first test, which bound her.
    expect((await one.gatehouse.store.users.findByUsername('ann'))?.ssoIdentity).toMatchObject({
      provider: 'default',
      issuer: environment.issuer,
    });
    const response = await acmeLogin(two, 'ann-acme');
    expect(statusAndCode(response)).toEqual({
      status: 401,
      code: 'SSO_INVALID_GROUPID_AND_USERNAME',
    });
    const trail = await auditTrail(one);
    expect(trail).toContainEqual(
      expect.objectContaining({ reason: 'sso_account_mismatch', providerId: 'acme', username: 'ann' }),
    );
  });

  it("ends a session by back-channel logout only with its own provider's token", async () => {
    const bob = await globexLogin(one, 'bob-1');
    const cookie = sessionCookie(bob);
    expect(await sessionStatus(two, cookie)).toBe(200);
    // Acme's provider names Globex's subject: a valid token of Acme's, matching nothing of Acme's.
    expect((await backchannel(two, acme.signLogoutToken({ sub: 'bob-1' }))).status).toBe(200);
    expect(await sessionStatus(two, cookie)).toBe(200);
    // Claiming Globex's issuer under Acme's key: verified with Globex's keys, refused.
    const forged = acme.signLogoutToken({
      sub: 'bob-1',
      iss: globex.issuer,
      aud: globex.clients.gatehouse.clientId,
    });
    expect((await backchannel(two, forged)).status).toBe(400);
    expect(await sessionStatus(one, cookie)).toBe(200);
    // Globex's own token ends it.
    expect((await backchannel(one, globex.signLogoutToken({ sub: 'bob-1' }))).status).toBe(200);
    expect(await sessionStatus(two, cookie)).toBe(401);
  });

  it('ends an SSO session at the provider it came through, and no other', async () => {
    const alice = await acmeLogin(one, 'alice-1', {
      scope: 'openid offline_access',
      extraParams: { prompt: 'consent' },
    });
    expect(alice.status).toBe(200);
    const revocations = () => [environment, acme, globex].map((tp) => requestsTo(tp, '/token/revocation'));
    const [envBefore, acmeBefore, globexBefore] = revocations();
    const response = await new TestClient(two.url).post(
      '/api/v1/openid/logout/',
      {},
      { cookie: sessionCookie(alice) },
    );
    expect(response.status).toBe(200);
    const [envAfter, acmeAfter, globexAfter] = revocations();
    expect(acmeAfter).toBeGreaterThan(acmeBefore!);
    expect([envAfter, globexAfter]).toEqual([envBefore, globexBefore]);
  });

  it('a provider updated to require a second factor refuses, on every instance, a token that vouches for none; accepts an amr naming one or a listed acr', async () => {
    const tokensWith = (claims: Record<string, unknown>) => {
      globex.hooks.idToken = (idToken) =>
        signJwt({}, { ...decodeJwtPayload(idToken), ...claims }, globex.signingKey);
    };
    // Each update a later row version (`updatedAt`): what the instances rebuild a provider by.
    const at = (day: number) => ({
      now: new Date(`2026-03-0${day}T00:00:00Z`),
      actor: 'administrator' as const,
    });
    await registry.update(
      'globex',
      { settings: { requireMfa: true, acrValues: ['urn:globex:strong'] } },
      at(2),
    );
    try {
      await vi.waitFor(
        async () =>
          expect(statusAndCode(await globexLogin(two, 'bob-1'))).toEqual({
            status: 401,
            code: 'SSO_INVALID',
          }),
        { timeout: 5000, interval: 100 },
      );
      tokensWith({ amr: ['pwd', 'hwk'] });
      expect((await globexLogin(two, 'bob-1')).status).toBe(200);
      tokensWith({ amr: ['pwd'], acr: 'urn:globex:strong' });
      await vi.waitFor(async () => expect((await globexLogin(one, 'bob-1')).status).toBe(200), {
        timeout: 5000,
        interval: 100,
      });
      const refusals = (await auditTrail(one)).filter((event) => event.reason === 'sso_mfa_missing');
      expect(refusals.length).toBeGreaterThan(0);
      expect(refusals.every((event) => event.providerId === 'globex')).toBe(true);
    } finally {
      globex.resetHooks();
      await registry.update('globex', { settings: { requireMfa: false, acrValues: [] } }, at(3));
    }
  });

  it('disabling a provider on one instance stops its logins and ends its live sessions on the other; enable restores logins', async () => {
    const alice = await acmeLogin(two, 'alice-1');
    const cookie = sessionCookie(alice);
    expect(await sessionStatus(two, cookie)).toBe(200);
    expect((await registry.setEnabled('acme', false, BY_ADMIN)).ok).toBe(true);
    // Each instance polls the registry's version (every 100 ms here, 5 s by default; at most 10 s).
    await vi.waitFor(async () => expect(await sessionStatus(two, cookie)).toBe(401), {
      timeout: 10_000,
      interval: 50,
    });
    // Instance one polls on its own timer: it may learn of the change up to a poll after two.
    await vi.waitFor(
      async () =>
        expect(statusAndCode(await acmeLogin(one, 'alice-1'))).toEqual({
          status: 400,
          code: 'INVALID_REQUEST',
        }),
      { timeout: 10_000, interval: 50 },
    );
    const trail = await auditTrail(two);
    expect(trail).toContainEqual(
      expect.objectContaining({ event: 'session_revoked', reason: 'provider_disabled', username: 'alice' }),
    );
    // Globex's customers are untouched.
    expect((await globexLogin(one, 'bob-1')).status).toBe(200);

    expect((await registry.setEnabled('acme', true, BY_ADMIN)).ok).toBe(true);
    await vi.waitFor(async () => expect((await acmeLogin(one, 'alice-1')).status).toBe(200), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it("removing a disabled provider forgets its users' bindings", async () => {
    expect((await one.gatehouse.store.users.findByUsername('alice'))?.ssoIdentity).toMatchObject({
      provider: 'acme',
    });
    expect((await registry.setEnabled('acme', false, BY_ADMIN)).ok).toBe(true);
    expect((await registry.remove('acme', BY_ADMIN)).ok).toBe(true);
    expect((await one.gatehouse.store.users.findByUsername('alice'))?.ssoIdentity).toBeNull();
    // Another customer's binding stays.
    expect((await one.gatehouse.store.users.findByUsername('bob'))?.ssoIdentity).toMatchObject({
      provider: 'globex',
    });
  });

  it("a start-up whose OIDC_REDIRECT_URIS collides with a registered provider starts, keeps the URI the environment's and refuses that provider alone, naming the URI", async () => {
    const own = await openTestPglite();
    await new SqlDirectoryRepository(own).addTenant('t-globex', null);
    await registerTestProvider(
      new SqlProviderRegistry(own, AesTokenSealer.fromBase64(KEY, [])),
      globex,
      { id: 'globex', redirectUris: [GLOBEX_URI], tenants: ['t-globex'] },
      BY_ADMIN,
    );
    const colliding = await startTestServer({
      sqlClient: own,
      env: { ...env, OIDC_REDIRECT_URIS: GLOBEX_URI },
    });
    try {
      expect(colliding.logs).toContainEqual(
        expect.objectContaining({
          level: 40,
          provider: 'globex',
          reason: `its redirect URI ${GLOBEX_URI} belongs to the environment's provider (OIDC_REDIRECT_URIS)`,
        }),
      );
      const directory = colliding.gatehouse.container.get(TOKENS.ProviderDirectory);
      expect(directory.select(GLOBEX_URI)?.rules.id).toBe('default');
      expect(directory.failures().has('globex')).toBe(true);
    } finally {
      await colliding.close();
    }
  });
});
