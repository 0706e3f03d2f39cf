import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository, SqlUserRepository } from '../../src/adapters/sql/sql-user-repository.js';
import {
  type DirectoryEntry,
  ProviderDirectory,
  RedirectUriCollisionError,
} from '../../src/application/sso/provider-directory.js';
import type { RegisteredProvider } from '../../src/domain/sso/provider-registration.js';
import { providerSettings } from '../contract/provider-registry.contract.js';
import { newUser, T0 } from '../contract/user-repository.contract.js';
import { openTestPglite, truncateAll } from '../support/databases.js';

const SECRETS = { clientSecret: 's', settings: {} };
const BY_ADMIN = { now: new Date('2026-03-01T00:00:00Z'), actor: 'administrator' } as const;
const LATER = { now: new Date('2026-03-02T00:00:00Z'), actor: 'administrator' } as const;

/** What the directory builds per provider here: a label, so a test sees which build it got. */
type Parts = { builtFor: string; issuer: string; build: number };

const ENVIRONMENT: DirectoryEntry<Parts> = {
  rules: {
    id: 'default',
    issuer: 'https://env.idp.example',
    clientId: 'portal',
    redirectUris: ['https://portal.example/sso/cb'],
    tenants: null,
    levels: [8],
    requirePkce: false,
  },
  parts: { builtFor: 'default', issuer: 'https://env.idp.example', build: 0 },
};

describe('ProviderDirectory over the SQL registry', () => {
  let client: SqlClient;
  let registry: SqlProviderRegistry;
  let builds: string[];
  const build = async (provider: RegisteredProvider): Promise<Parts> => {
    builds.push(provider.id);
    if (provider.interpreter === 'broken') throw new Error('the interpreter factory failed');
    return { builtFor: provider.id, issuer: provider.issuer, build: builds.length };
  };

  beforeAll(async () => {
    client = await openTestPglite();
  });
  afterAll(async () => {
    await client?.close();
  });
  beforeEach(async () => {
    await truncateAll(client);
    const directory = new SqlDirectoryRepository(client);
    await directory.addTenant('t1', null);
    registry = new SqlProviderRegistry(client, AesTokenSealer.random());
    builds = [];
  });

  it("selects the provider whose redirect URIs hold the request's exactly, and none for any other", async () => {
    await registry.add(
      providerSettings('acme', { redirectUris: ['https://portal.example/acme/cb?tenant=1'] }),
      SECRETS,
      BY_ADMIN,
    );
    await registry.add(providerSettings('globex'), SECRETS, BY_ADMIN);
    const directory = new ProviderDirectory(registry, ENVIRONMENT, build);
    await directory.refresh();
    expect(directory.select('https://portal.example/acme/cb?tenant=1')?.parts.builtFor).toBe('acme');
    expect(directory.select('https://portal.example/globex/callback')?.rules).toMatchObject({
      id: 'globex',
      tenants: ['t1'],
    });
    expect(directory.select('https://portal.example/sso/cb')?.parts.builtFor).toBe('default');
    for (const near of [
      'https://portal.example/acme/cb',
      'https://portal.example/acme/cb?tenant=1&x=2',
      'https://portal.example/globex/callback/',
      'HTTPS://portal.example/globex/callback',
      'https://portal.example/sso/cb#',
    ]) {
      expect(directory.select(near), near).toBeNull();
    }
  });

  it('reads only the version while nothing changed, and rebuilds only the provider that did', async () => {
    await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
    await registry.add(providerSettings('globex'), SECRETS, BY_ADMIN);
    const directory = new ProviderDirectory(registry, null, build);
    expect(await directory.refresh()).toBe(true);
    expect(await directory.refresh()).toBe(false);
    expect(builds.sort()).toEqual(['acme', 'globex']);
    await registry.update('acme', { settings: { issuer: 'https://new.acme.example' } }, LATER);
    expect(await directory.refresh()).toBe(true);
    expect(builds.sort()).toEqual(['acme', 'acme', 'globex']);
    expect(directory.find('acme')?.parts.issuer).toBe('https://new.acme.example');
  });

  it('stops selecting a disabled provider and selects it again once enabled', async () => {
    await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
    const directory = new ProviderDirectory(registry, ENVIRONMENT, build);
    await directory.refresh();
    await registry.setEnabled('acme', false, LATER);
    await directory.refresh();
    expect(directory.select('https://portal.example/acme/callback')).toBeNull();
    expect(directory.find('acme')).toBeNull();
    await registry.setEnabled('acme', true, LATER);
    await directory.refresh();
    expect(directory.select('https://portal.example/acme/callback')?.rules.id).toBe('acme');
  });

  it('serves the sessions of an enabled provider made since it was last enabled, of users it admits', async () => {
    await new SqlDirectoryRepository(client).addTenant('t2', null);
    const users = new SqlUserRepository(client);
    const ann = await users.create(newUser({ tenantId: 't1', userLevel: 8 }), T0);
    const ben = await users.create(newUser({ tenantId: 't1', userLevel: 12 }), T0);
    const cid = await users.create(newUser({ tenantId: 't2', userLevel: 8 }), T0);
    await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
    const directory = new ProviderDirectory(registry, ENVIRONMENT, build);
    await directory.refresh();
    const before = new Date('2026-03-01T12:00:00Z');
    expect(directory.isServed('acme', before, ann)).toBe(true);
    expect(directory.isServed('acme', new Date('2026-02-28T00:00:00Z'), ann)).toBe(false);
    // Its tenants (t1) and levels (8) only, as a login checks them.
    expect(directory.isServed('acme', before, ben)).toBe(false);
    expect(directory.isServed('acme', before, cid)).toBe(false);
    await registry.setEnabled('acme', false, LATER);
    await directory.refresh();
    expect(directory.isServed('acme', before, ann)).toBe(false);
    await registry.setEnabled('acme', true, LATER);
    await directory.refresh();
    expect(directory.isServed('acme', before, ann)).toBe(false);
    expect(directory.isServed('acme', new Date('2026-03-02T00:00:01Z'), ann)).toBe(true);
    expect(directory.isServed('default', before, cid)).toBe(true);
  });

  it("keeps serving the others when one provider's adapters cannot be built, and says which", async () => {
    await registry.add(providerSettings('acme', { interpreter: 'broken' }), SECRETS, BY_ADMIN);
    await registry.add(providerSettings('globex'), SECRETS, BY_ADMIN);
    const directory = new ProviderDirectory(registry, null, build);
    await directory.refresh();
    expect(directory.select('https://portal.example/acme/callback')).toBeNull();
    expect(directory.select('https://portal.example/globex/callback')?.rules.id).toBe('globex');
    expect(directory.failures().get('acme')?.message).toBe('the interpreter factory failed');
  });

  it('refuses an environment whose redirect URI a registered provider holds, naming both', async () => {
    await registry.add(
      providerSettings('acme', { redirectUris: ['https://portal.example/sso/cb'] }),
      SECRETS,
      BY_ADMIN,
    );
    const directory = new ProviderDirectory(registry, ENVIRONMENT, build);
    const refused = await directory.refresh().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RedirectUriCollisionError);
    expect((refused as Error).message).toBe(
      'OIDC_REDIRECT_URIS: https://portal.example/sso/cb is also a redirect URI of registered provider "acme"',
    );
  });
});
