import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { registeredProviderParts } from '../../src/adapters/openid/provider-parts.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { ProviderDirectory } from '../../src/application/sso/provider-directory.js';
import type { SsoProviderParts } from '../../src/application/sso/sso-providers.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { isDomainError } from '../../src/domain/shared/domain-error.js';
import { openTestPglite } from '../support/databases.js';
import { ACME_REGISTRATION, GLOBEX_REGISTRATION } from '../support/oidc/customer-registrations.js';
import { registerTestProvider } from '../support/oidc/register-test-provider.js';
import { DEFAULT_REDIRECT_URI, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';

const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;

/**
 * Two customers' real OpenID providers (own issuers, own keys) registered side by side: each
 * registered provider becomes an OpenID client of its own issuer and secret and an interpreter
 * with its own settings, and a code of one customer's provider cannot be exchanged through the
 * other's.
 */
describe('registered providers become their own adapters', () => {
  let client: SqlClient;
  let acme: TestProvider;
  let globex: TestProvider;
  let directory: ProviderDirectory<SsoProviderParts>;

  beforeAll(async () => {
    [client, acme, globex] = await Promise.all([
      openTestPglite(),
      startTestProvider({
        accounts: { 'alice-1': { acme: { login: 'alice' }, acme_org: { unit_id: 'g-acme' } } },
        redirectUris: [`${DEFAULT_REDIRECT_URI}?customer=acme`, DEFAULT_REDIRECT_URI],
      }),
      startTestProvider({
        accounts: { 'bob-1': { login_name: 'bob', groups: ['g-globex'] } },
        signingAlg: 'ES256',
      }),
    ]);
    const tenants = new SqlDirectoryRepository(client);
    await tenants.addTenant('t-acme', null);
    await tenants.addTenant('t-globex', null);
    const registry = new SqlProviderRegistry(client, AesTokenSealer.random());
    await registerTestProvider(
      registry,
      acme,
      { ...ACME_REGISTRATION, redirectUris: [`${DEFAULT_REDIRECT_URI}?customer=acme`] },
      BY_ADMIN,
    );
    await registerTestProvider(
      registry,
      globex,
      { ...GLOBEX_REGISTRATION, redirectUris: [DEFAULT_REDIRECT_URI] },
      BY_ADMIN,
    );
    const config = loadConfig({
      SSO_INTERPRETERS: 'acme=./test/fixtures/acme-interpreter/index.js',
      OIDC_ALLOW_INSECURE_HTTP: 'true',
    });
    directory = new ProviderDirectory(registry, null, registeredProviderParts(config.sso));
    await directory.refresh();
  });
  afterAll(async () => {
    await Promise.all([client?.close(), acme?.close(), globex?.close()]);
  });

  it("logs each customer's user in through that customer's provider and interpreter", async () => {
    const acmeEntry = directory.select(`${DEFAULT_REDIRECT_URI}?customer=acme`)!;
    const acmeCode = await acme.issueCode({
      accountId: 'alice-1',
      nonce: 'n-acme',
      redirectUri: `${DEFAULT_REDIRECT_URI}?customer=acme`,
    });
    const acmeTokens = await acmeEntry.parts.provider.exchangeCode({
      authorizationCode: acmeCode.code,
      redirectUri: `${DEFAULT_REDIRECT_URI}?customer=acme`,
      nonce: 'n-acme',
    });
    expect(acmeTokens.issuer).toBe(acme.issuer);
    expect(await acmeEntry.parts.interpreter.interpret(acmeTokens)).toEqual({
      username: 'alice',
      groupIds: ['g-acme'],
    });

    const globexEntry = directory.select(DEFAULT_REDIRECT_URI)!;
    const globexCode = await globex.issueCode({ accountId: 'bob-1', nonce: 'n-globex' });
    const globexTokens = await globexEntry.parts.provider.exchangeCode({
      authorizationCode: globexCode.code,
      redirectUri: DEFAULT_REDIRECT_URI,
      nonce: 'n-globex',
    });
    expect(globexTokens.issuer).toBe(globex.issuer);
    expect(await globexEntry.parts.interpreter.interpret(globexTokens)).toMatchObject({ username: 'bob' });
  });

  it("refuses a code of one customer's provider sent through the other's", async () => {
    const acmeCode = await acme.issueCode({
      accountId: 'alice-1',
      nonce: 'n-x',
      redirectUri: DEFAULT_REDIRECT_URI,
    });
    const refused = await directory
      .select(DEFAULT_REDIRECT_URI)!
      .parts.provider.exchangeCode({
        authorizationCode: acmeCode.code,
        redirectUri: DEFAULT_REDIRECT_URI,
        nonce: 'n-x',
      })
      .catch((error: unknown) => error);
    expect(isDomainError(refused) && refused.code).toBe('SSO_REFUSED');
  });
});
