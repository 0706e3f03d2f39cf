import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository, SqlUserRepository } from '../../src/adapters/sql/sql-user-repository.js';
import {
  type DirectoryEntry,
  ProviderDirectory,
  type ProviderLoadObserver,
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
    requireMfa: false,
    acrValues: [],
  },
  parts: { builtFor: 'default', issuer: 'https://env.idp.example', build: 0 },
};

/** Those of `uris` that select a provider. */
const selected = (directory: ProviderDirectory<Parts>, uris: readonly string[]) =>
  uris.filter((uri) => directory.select(uri) !== null);

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
    expect(
      selected(directory, [
        'https://portal.example/acme/cb',
        'https://portal.example/acme/cb?tenant=1&x=2',
        'https://portal.example/globex/callback/',
        'HTTPS://portal.example/globex/callback',
        'https://portal.example/sso/cb#',
      ]),
    ).toEqual([]);
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

  describe('a row this instance cannot load harms only itself', () => {
    /** Every kind of bad row, beside the good "acme"; `hung`'s interpreter factory never settles. */
    const addBadRows = async () => {
      await new SqlProviderRegistry(client, AesTokenSealer.random()).add(
        providerSettings('sealed-elsewhere'),
        SECRETS,
        BY_ADMIN,
      );
      // Added from a shell without OIDC_*: the environment's redirect URI was not known there.
      await registry.add(
        providerSettings('colliding', {
          redirectUris: ['https://portal.example/colliding/cb', 'https://portal.example/sso/cb'],
        }),
        SECRETS,
        BY_ADMIN,
      );
      await registry.add(providerSettings('unknown-interpreter', { interpreter: 'gone' }), SECRETS, BY_ADMIN);
      await registry.add(providerSettings('hung', { interpreter: 'hung' }), SECRETS, BY_ADMIN);
    };
    const told: string[] = [];
    const observer: ProviderLoadObserver = {
      failed: (id, reason) => told.push(`failed ${id}: ${reason}`),
      recovered: (id) => told.push(`recovered ${id}`),
    };
    /** Never settles for `hung`: only the directory's bound ends its wait. */
    const buildOrHang = (provider: RegisteredProvider) =>
      provider.interpreter === 'hung' ? new Promise<Parts>(() => {}) : build(provider);
    const directoryOver = () =>
      new ProviderDirectory(registry, ENVIRONMENT, buildOrHang, {
        interpreterNames: ['claims', 'hung'],
        buildTimeoutMs: 50,
        observer,
      });

    beforeEach(() => {
      told.length = 0;
    });

    it('loads the others, keeps the URI with the environment, and says why each bad row is refused', async () => {
      await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
      await addBadRows();
      const directory = directoryOver();
      expect(await directory.refresh()).toBe(true);

      expect(directory.select('https://portal.example/acme/callback')?.rules.id).toBe('acme');
      expect(directory.select('https://portal.example/sso/cb')?.rules.id).toBe('default');
      // A refused row selects nothing, not even its redirect URIs the environment does not hold.
      expect(
        selected(directory, [
          'https://portal.example/colliding/cb',
          'https://portal.example/sealed-elsewhere/callback',
          'https://portal.example/unknown-interpreter/callback',
          'https://portal.example/hung/callback',
        ]),
      ).toEqual([]);
      const reasons = Object.fromEntries([...directory.failures()].map(([id, error]) => [id, error.message]));
      expect(reasons).toEqual({
        colliding:
          "its redirect URI https://portal.example/sso/cb belongs to the environment's provider (OIDC_REDIRECT_URIS)",
        hung: 'its adapters were not built within 50 ms (its interpreter module or factory did not settle)',
        'sealed-elsewhere':
          'its secrets do not open with TOKEN_ENCRYPTION_KEY (nor TOKEN_ENCRYPTION_KEYS_PREVIOUS): they were sealed under another key',
        'unknown-interpreter': 'its interpreter "gone" is not named in SSO_INTERPRETERS',
      });
      expect(told.sort()).toEqual(Object.entries(reasons).map(([id, reason]) => `failed ${id}: ${reason}`));
      // Sessions already made through a refused but enabled provider stay usable.
      const member = await new SqlUserRepository(client).create(
        newUser({ tenantId: 't1', userLevel: 8 }),
        T0,
      );
      expect(directory.isServed('sealed-elsewhere', LATER.now, member)).toBe(true);
    });

    it('keeps applying later changes: a disable takes effect, a bad row is not rebuilt nor told again until it changes', async () => {
      await registry.add(providerSettings('acme'), SECRETS, BY_ADMIN);
      await registry.add(providerSettings('globex'), SECRETS, BY_ADMIN);
      await addBadRows();
      const directory = directoryOver();
      await directory.refresh();
      const buildsBefore = builds.length;
      told.length = 0;

      await registry.setEnabled('acme', false, LATER);
      expect(await directory.refresh()).toBe(true);
      expect(directory.select('https://portal.example/acme/callback')).toBeNull();
      const member = await new SqlUserRepository(client).create(
        newUser({ tenantId: 't1', userLevel: 8 }),
        T0,
      );
      expect(directory.isServed('acme', LATER.now, member)).toBe(false);
      expect(directory.select('https://portal.example/globex/callback')?.rules.id).toBe('globex');
      expect(builds.length).toBe(buildsBefore);
      expect(told).toEqual([]);

      // Disabling a bad row takes it out of the failures; fixing another loads it.
      await registry.setEnabled('colliding', false, LATER);
      await registry.update(
        'unknown-interpreter',
        { settings: { interpreter: 'claims' } },
        { ...LATER, now: new Date('2026-03-03T00:00:00Z') },
      );
      await directory.refresh();
      expect(told.sort()).toEqual(['recovered colliding', 'recovered unknown-interpreter']);
      expect(directory.select('https://portal.example/unknown-interpreter/callback')?.rules.id).toBe(
        'unknown-interpreter',
      );
      expect([...directory.failures().keys()].sort()).toEqual(['hung', 'sealed-elsewhere']);
    });
  });
});
