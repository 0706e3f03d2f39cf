/**
 * A registry row an instance cannot load harms only itself, on a real service with real OpenID
 * providers: a row sealed under another TOKEN_ENCRYPTION_KEY, one whose redirect URI the
 * instance's OIDC_REDIRECT_URIS holds (added from a shell without OIDC_*), one naming an
 * interpreter the instance does not know, and one whose interpreter factory never settles. The
 * service starts, the environment's provider and a good customer's provider log users in, a later
 * `disable` still applies, and each bad row is logged and counted in metrics.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { providerSettings } from '../contract/provider-registry.contract.js';
import { REDIRECT_URI, ssoEnv, ssoLogin } from '../fixtures/sso/harness.js';
import { openTestPglite } from '../support/databases.js';
import { ACME_REGISTRATION } from '../support/oidc/customer-registrations.js';
import { registerTestProvider } from '../support/oidc/register-test-provider.js';
import { startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';
import { seedUser, startTestServer, TestClient, type TestServer } from '../support/test-server.js';

const KEY = randomBytes(32).toString('base64');
const ACME_URI = `${REDIRECT_URI}?customer=acme`;
const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;
const SECRET = 'a-client-secret-never-logged';

describe('a registry row this instance cannot load', () => {
  let client: SqlClient;
  let registry: SqlProviderRegistry;
  let environment: TestProvider;
  let acme: TestProvider;
  let server: TestServer;

  const acmeLogin = () =>
    ssoLogin(new TestClient(server.url), acme, { accountId: 'alice-1', redirectUri: ACME_URI });

  beforeAll(async () => {
    [client, environment, acme] = await Promise.all([
      openTestPglite(),
      startTestProvider({ accounts: { 'ann-env': { preferred_username: 'ann', groups: ['g-acme'] } } }),
      startTestProvider({
        redirectUris: [ACME_URI],
        accounts: { 'alice-1': { acme: { login: 'alice' }, acme_org: { unit_id: 'g-acme' } } },
      }),
    ]);
    await new SqlDirectoryRepository(client).addTenant('t-acme', null);
    registry = new SqlProviderRegistry(client, AesTokenSealer.fromBase64(KEY, []));
    await registerTestProvider(registry, acme, { ...ACME_REGISTRATION, redirectUris: [ACME_URI] }, BY_ADMIN);
    const bad = { clientSecret: SECRET, settings: {} };
    const tenants = ['t-acme'];
    // Sealed by an instance (or a shell) holding another TOKEN_ENCRYPTION_KEY.
    await new SqlProviderRegistry(client, AesTokenSealer.random()).add(
      providerSettings('sealed-elsewhere', { tenants }),
      bad,
      BY_ADMIN,
    );
    // Added from a shell without OIDC_*: it could not know REDIRECT_URI is the environment's.
    await registry.add(
      providerSettings('colliding', { tenants, redirectUris: [REDIRECT_URI] }),
      bad,
      BY_ADMIN,
    );
    await registry.add(
      providerSettings('unknown-interpreter', { tenants, interpreter: 'gone' }),
      bad,
      BY_ADMIN,
    );
    await registry.add(providerSettings('hung', { tenants, interpreter: 'hung' }), bad, BY_ADMIN);

    server = await startTestServer({
      sqlClient: client,
      env: ssoEnv(environment, {
        TOKEN_ENCRYPTION_KEY: KEY,
        SSO_INTERPRETERS:
          'acme=./test/fixtures/acme-interpreter/index.js,hung=./test/fixtures/broken-interpreters/never-settles.js',
        SSO_REGISTRY_POLL_MS: '100',
        // Also the bound on building a provider's adapters: the hung factory is abandoned after it.
        OIDC_TIMEOUT_MS: '1000',
      }),
    });
    await seedUser(server, { username: 'alice', userLevel: 8, tenantId: 't-acme', groupId: 'g-acme' });
    await seedUser(server, { username: 'ann', userLevel: 8, tenantId: 't-acme', groupId: 'g-acme' });
  });

  afterAll(async () => {
    await server?.close();
    await Promise.all([environment?.close(), acme?.close()]);
  });

  it('does not stop the start-up: the environment keeps its redirect URI and the good provider logs users in', async () => {
    const [ann, alice] = await Promise.all([
      ssoLogin(new TestClient(server.url), environment, { accountId: 'ann-env' }),
      acmeLogin(),
    ]);
    expect([ann.status, alice.status]).toEqual([200, 200]);
    expect(alice.body).toMatchObject({ ids: { tenant_id: 't-acme' } });
  });

  it('logs each bad row once, with its id and the reason, and counts it in metrics; no secret in either', async () => {
    const warnings = server.logs.filter((line) => line.level === 40 && typeof line.provider === 'string');
    expect(Object.fromEntries(warnings.map((line) => [line.provider, line.reason]))).toEqual({
      colliding: `its redirect URI ${REDIRECT_URI} belongs to the environment's provider (OIDC_REDIRECT_URIS)`,
      hung: 'its adapters were not built within 1000 ms (its interpreter module or factory did not settle)',
      'sealed-elsewhere':
        'its secrets do not open with TOKEN_ENCRYPTION_KEY (nor TOKEN_ENCRYPTION_KEYS_PREVIOUS): they were sealed under another key',
      'unknown-interpreter': 'its interpreter "gone" is not named in SSO_INTERPRETERS',
    });
    expect(warnings).toHaveLength(4);
    const metrics = await server.gatehouse.metrics.render();
    for (const id of ['colliding', 'hung', 'sealed-elsewhere', 'unknown-interpreter']) {
      expect(metrics).toContain(`gatehouse_sso_provider_load_failed{provider="${id}"} 1`);
    }
    expect(metrics).not.toContain('gatehouse_sso_provider_load_failed{provider="acme"}');
    expect(server.rawLogs.join('\n')).not.toContain(SECRET);
  });

  it('keeps applying later changes: a disable stops the good provider, removing a bad row clears its metric', async () => {
    expect((await registry.setEnabled('acme', false, BY_ADMIN)).ok).toBe(true);
    expect((await registry.setEnabled('sealed-elsewhere', false, BY_ADMIN)).ok).toBe(true);
    expect((await registry.remove('sealed-elsewhere', BY_ADMIN)).ok).toBe(true);
    await vi.waitFor(
      async () => {
        const refused = await acmeLogin();
        expect({ status: refused.status, code: refused.body?.code }).toEqual({
          status: 400,
          code: 'INVALID_REQUEST',
        });
      },
      { timeout: 10_000, interval: 100 },
    );
    const metrics = await server.gatehouse.metrics.render();
    expect(metrics).not.toContain('gatehouse_sso_provider_load_failed{provider="sealed-elsewhere"}');
    expect(metrics).toContain('gatehouse_sso_provider_load_failed{provider="hung"} 1');
  });
});
