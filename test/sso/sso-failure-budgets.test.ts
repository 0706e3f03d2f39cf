/**
 * SSO failure budgets are per provider: a client address's failed SSO logins are counted against
 * the provider they went to, so one customer's provider failing (down, or refusing every code)
 * throttles only logins through it, never another customer's users behind the same address (an
 * office NAT, a proxy). Two real oidc-provider instances, one of them then stopped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { nonce, REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { openTestPglite } from '../support/databases.js';
import { registerTestProvider } from '../support/oidc/register-test-provider.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const KEY = randomBytes(32).toString('base64');
const FAILING_URI = `${REDIRECT_URI}?customer=failing`;
const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;
/** LOGIN_MAX_FAILURES=1: an address may fail 10 SSO logins a window per provider. */
const ADDRESS_BUDGET = 10;
/** One office's address, in front of both customers' users (TRUST_PROXY=1). */
const OFFICE = { 'x-forwarded-for': '192.0.2.44' };

describe('SSO failure budgets per provider', () => {
  let client: SqlClient;
  let healthy: TestProvider;
  let failing: TestProvider;
  let server: TestServer;

  /** A login through the failing customer's provider, from the office. */
  const failingLogin = () =>
    new TestClient(server.url).post(
      '/api/v1/openid/login/',
      { nonce: nonce(), authorization_code: randomBytes(8).toString('hex'), redirect_uri: FAILING_URI },
      OFFICE,
    );

  beforeAll(async () => {
    [client, healthy, failing] = await Promise.all([
      openTestPglite(),
      startTestProvider({ accounts: { 'ann-1': { preferred_username: 'ann', groups: ['g-healthy'] } } }),
      startTestProvider({ redirectUris: [FAILING_URI] }),
    ]);
    const directory = new SqlDirectoryRepository(client);
    for (const tenant of ['t-healthy', 't-failing']) await directory.addTenant(tenant, null);
    const registry = new SqlProviderRegistry(client, AesTokenSealer.fromBase64(KEY, []));
    await registerTestProvider(
      registry,
      failing,
      { id: 'failing', tenants: ['t-failing'], interpreter: 'claims', redirectUris: [FAILING_URI] },
      BY_ADMIN,
    );
    server = await startTestServer({
      sqlClient: client,
      env: ssoEnv(healthy, { TOKEN_ENCRYPTION_KEY: KEY, TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '1' }),
    });
    await seedUser(server, { username: 'ann', userLevel: 8, tenantId: 't-healthy', groupId: 'g-healthy' });
  });

  afterAll(async () => {
    await server?.close();
    await Promise.all([healthy?.close(), failing?.close()]);
  });

  it("one provider's outage throttles logins through it, not another provider's users at the same address", async () => {
    // The failing customer's provider is down: every login through it is 502 until its budget is spent.
    await failing.close();
    const answers = [];
    for (let i = 0; i < ADDRESS_BUDGET + 1; i++) answers.push(await failingLogin());
    expect(answers.slice(0, ADDRESS_BUDGET).map((answer) => answer.body?.code)).toEqual(
      Array(ADDRESS_BUDGET).fill('SSO_UNREACHABLE'),
    );
    expect(answers.at(-1)).toMatchObject({ status: 429, body: { code: 'TOO_MANY_ATTEMPTS' } });

    // The other customer's user, behind the same address, logs in.
    const { code } = await healthy.issueCode({ accountId: 'ann-1', nonce: 'n-1', redirectUri: REDIRECT_URI });
    const login = await new TestClient(server.url).post(
      '/api/v1/openid/login/',
      { nonce: 'n-1', authorization_code: code, redirect_uri: REDIRECT_URI },
      OFFICE,
    );
    expect(login.status).toBe(200);
  });

  it("a provider's refused codes spend its own budget too, and the other provider's budget stays whole", async () => {
    // The healthy provider refusing junk codes (invalid_grant) from the office: its own budget.
    const refusals = [];
    for (let i = 0; i < ADDRESS_BUDGET + 1; i++) {
      refusals.push(
        await new TestClient(server.url).post(
          '/api/v1/openid/login/',
          { nonce: nonce(), authorization_code: 'junk', redirect_uri: REDIRECT_URI },
          OFFICE,
        ),
      );
    }
    expect(refusals.slice(0, ADDRESS_BUDGET).map((answer) => answer.body?.code)).toEqual(
      Array(ADDRESS_BUDGET).fill('SSO_REFUSED'),
    );
    expect(refusals.at(-1)?.status).toBe(429);
    // From another address, the same provider still logs in.
    expect((await ssoLogin(new TestClient(server.url), healthy, { accountId: 'ann-1' })).status).toBe(200);
  });
});
