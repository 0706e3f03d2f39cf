import { beforeEach, describe, expect, it } from 'vitest';
import type { ProviderSecrets, ProviderSettings } from '../../src/domain/sso/provider-registration.js';
import type { ProviderRegistry } from '../../src/domain/sso/provider-registry.port.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const AT_T0 = { now: T0, actor: 'administrator' } as const;
const T1 = new Date('2026-01-02T00:00:00Z');
const AT_T1 = { now: T1, actor: 'administrator' } as const;

export function providerSettings(id: string, overrides: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    id,
    issuer: `https://${id}.idp.example`,
    clientId: `gatehouse-${id}`,
    clientAuth: 'client_secret_basic',
    redirectUris: [`https://portal.example/${id}/callback`],
    tenants: ['t1'],
    interpreter: 'claims',
    levels: [8],
    requirePkce: false,
    idTokenAlg: 'RS256',
    requireMfa: false,
    acrValues: [],
    enabled: true,
    ...overrides,
  };
}

const SECRETS: ProviderSecrets = {
  clientSecret: 'shh-client-secret',
  settings: { API_TOKEN: 'shh-setting' },
};

/**
 * The behaviour every ProviderRegistry must show. `open` gives an empty registry whose store
 * holds the tenants `t1` and `t2`.
 */
export function providerRegistryContract(open: () => Promise<ProviderRegistry>): void {
  describe('ProviderRegistry contract', () => {
    let registry: ProviderRegistry;
    beforeEach(async () => {
      registry = await open();
    });

    it('keeps what was added, secrets included, and lists providers by id', async () => {
      const added = await registry.add(
        providerSettings('globex', { tenants: ['t2', 't1'], levels: [8, 12] }),
        SECRETS,
        AT_T0,
      );
      expect(added.ok).toBe(true);
      await registry.add(
        providerSettings('acme', { redirectUris: ['https://a.example/cb?x=1', 'https://a.example/cb2'] }),
        SECRETS,
        AT_T0,
      );
      const found = await registry.find('globex');
      expect(found).toMatchObject({
        id: 'globex',
        issuer: 'https://globex.idp.example',
        tenants: ['t1', 't2'],
        levels: [8, 12],
        enabled: true,
        secrets: SECRETS,
        createdAt: T0,
        updatedAt: T0,
      });
      expect((await registry.list()).map((provider) => provider.id)).toEqual(['acme', 'globex']);
      expect((await registry.find('acme'))?.redirectUris).toEqual([
        'https://a.example/cb?x=1',
        'https://a.example/cb2',
      ]);
      expect(await registry.find('nobody')).toBeNull();
    });

    it('refuses a second provider with the same id', async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      const again = await registry.add(
        providerSettings('acme', { redirectUris: ['https://other.example/cb'] }),
        SECRETS,
        AT_T0,
      );
      expect(again).toEqual({ ok: false, refusal: { kind: 'id-taken', id: 'acme' } });
    });

    it('refuses a redirect URI another provider holds, naming it and its owner, and writes nothing', async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      const before = await registry.version();
      const clash = await registry.add(
        providerSettings('globex', {
          redirectUris: ['https://portal.example/globex/callback', 'https://portal.example/acme/callback'],
        }),
        SECRETS,
        AT_T0,
      );
      expect(clash).toEqual({
        ok: false,
        refusal: { kind: 'redirect-uri-taken', uri: 'https://portal.example/acme/callback', by: 'acme' },
      });
      expect(await registry.find('globex')).toBeNull();
      expect(await registry.version()).toBe(before);
    });

    it('refuses an unknown tenant and writes nothing', async () => {
      const refused = await registry.add(
        providerSettings('acme', { tenants: ['t1', 'nope'] }),
        SECRETS,
        AT_T0,
      );
      expect(refused).toEqual({ ok: false, refusal: { kind: 'unknown-tenant', tenant: 'nope' } });
      expect(await registry.list()).toEqual([]);
    });

    it('changes only the options an update names and keeps the secrets it is not given', async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      const updated = await registry.update(
        'acme',
        { settings: { levels: [4, 8], issuer: undefined }, secrets: { settings: { OTHER: 'x' } } },
        AT_T1,
      );
      expect(updated.ok).toBe(true);
      const found = await registry.find('acme');
      expect(found).toMatchObject({
        issuer: 'https://acme.idp.example',
        levels: [4, 8],
        redirectUris: ['https://portal.example/acme/callback'],
        secrets: { clientSecret: 'shh-client-secret', settings: { API_TOKEN: 'shh-setting', OTHER: 'x' } },
        createdAt: T0,
        updatedAt: T1,
      });
      const rotated = await registry.update(
        'acme',
        { settings: {}, secrets: { clientSecret: 'new-secret' } },
        AT_T1,
      );
      expect(rotated.ok && rotated.value.secrets?.clientSecret).toBe('new-secret');
    });

    it('keeps whether a provider requires a second factor and its acr values; an update changes them (migration 0015)', async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      expect(await registry.find('acme')).toMatchObject({ requireMfa: false, acrValues: [] });
      await registry.add(
        providerSettings('globex', { requireMfa: true, acrValues: ['urn:acr:mfa', 'silver'] }),
        SECRETS,
        AT_T0,
      );
      expect(await registry.find('globex')).toMatchObject({
        requireMfa: true,
        acrValues: ['urn:acr:mfa', 'silver'],
      });
      await registry.update('globex', { settings: { acrValues: [] } }, AT_T1);
      expect(await registry.find('globex')).toMatchObject({ requireMfa: true, acrValues: [] });
      await registry.update('acme', { settings: { requireMfa: true, acrValues: ['gold'] } }, AT_T1);
      expect(await registry.find('acme')).toMatchObject({ requireMfa: true, acrValues: ['gold'] });
    });

    it("lets an update move its own redirect URIs but not take another provider's", async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      await registry.add(providerSettings('globex'), SECRETS, AT_T0);
      const moved = await registry.update(
        'acme',
        { settings: { redirectUris: ['https://portal.example/acme/v2'] } },
        AT_T1,
      );
      expect(moved.ok).toBe(true);
      const taken = await registry.update(
        'acme',
        { settings: { redirectUris: ['https://portal.example/globex/callback'] } },
        AT_T1,
      );
      expect(taken).toEqual({
        ok: false,
        refusal: { kind: 'redirect-uri-taken', uri: 'https://portal.example/globex/callback', by: 'globex' },
      });
      expect((await registry.find('acme'))?.redirectUris).toEqual(['https://portal.example/acme/v2']);
      // The URI acme gave up is free again.
      const reused = await registry.add(
        providerSettings('initech', { redirectUris: ['https://portal.example/acme/callback'] }),
        SECRETS,
        AT_T1,
      );
      expect(reused.ok).toBe(true);
    });

    it('disables and enables a provider; removes only a disabled one', async () => {
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      expect(await registry.remove('acme', AT_T1)).toEqual({
        ok: false,
        refusal: { kind: 'still-enabled', id: 'acme' },
      });
      const disabled = await registry.setEnabled('acme', false, AT_T1);
      expect(disabled.ok && disabled.value.enabled).toBe(false);
      expect((await registry.remove('acme', AT_T1)).ok).toBe(true);
      expect(await registry.find('acme')).toBeNull();
      const reused = await registry.add(
        providerSettings('globex', { redirectUris: ['https://portal.example/acme/callback'] }),
        SECRETS,
        AT_T1,
      );
      expect(reused.ok).toBe(true);
    });

    it('is enabled since its add, and since an enable that follows a disable (an update changes nothing of it)', async () => {
      const at = (day: number) => ({
        now: new Date(Date.UTC(2026, 0, day)),
        actor: 'administrator' as const,
      });
      const since = async () => (await registry.find('acme'))?.enabledSince.toISOString();
      await registry.add(providerSettings('acme'), SECRETS, at(1));
      expect(await since()).toBe('2026-01-01T00:00:00.000Z');
      await registry.update('acme', { settings: { levels: [8, 12] } }, at(2));
      await registry.setEnabled('acme', true, at(3));
      expect(await since()).toBe('2026-01-01T00:00:00.000Z');
      await registry.setEnabled('acme', false, at(4));
      expect(await since()).toBe('2026-01-01T00:00:00.000Z');
      await registry.setEnabled('acme', true, at(5));
      expect(await since()).toBe('2026-01-05T00:00:00.000Z');
      // Removed and added again: a new registration, enabled since its own add.
      await registry.setEnabled('acme', false, at(6));
      await registry.remove('acme', at(6));
      await registry.add(providerSettings('acme'), SECRETS, at(7));
      expect(await since()).toBe('2026-01-07T00:00:00.000Z');
    });

    it('answers not-found for every write to an unknown provider', async () => {
      const notFound = { ok: false, refusal: { kind: 'not-found', id: 'ghost' } };
      expect(await registry.update('ghost', { settings: { levels: [8] } }, AT_T1)).toEqual(notFound);
      expect(await registry.setEnabled('ghost', false, AT_T1)).toEqual(notFound);
      expect(await registry.remove('ghost', AT_T1)).toEqual(notFound);
    });

    it('moves the version on with every write and only then', async () => {
      const v0 = await registry.version();
      await registry.add(providerSettings('acme'), SECRETS, AT_T0);
      const v1 = await registry.version();
      expect(v1).not.toBe(v0);
      await registry.find('acme');
      await registry.list();
      expect(await registry.version()).toBe(v1);
      await registry.setEnabled('acme', false, AT_T1);
      const v2 = await registry.version();
      expect(v2).not.toBe(v1);
      await registry.update('acme', { settings: { requirePkce: true } }, AT_T1);
      expect(await registry.version()).not.toBe(v2);
    });

    it('lets exactly one of two concurrent adds take a redirect URI', async () => {
      const results = await Promise.all([
        registry.add(
          providerSettings('acme', { redirectUris: ['https://shared.example/cb'] }),
          SECRETS,
          AT_T0,
        ),
        registry.add(
          providerSettings('globex', { redirectUris: ['https://shared.example/cb'] }),
          SECRETS,
          AT_T0,
        ),
      ]);
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      const refused = results.find((result) => !result.ok);
      expect(refused).toMatchObject({
        ok: false,
        refusal: { kind: 'redirect-uri-taken', uri: 'https://shared.example/cb' },
      });
      expect(await registry.list()).toHaveLength(1);
    });
  });
}
