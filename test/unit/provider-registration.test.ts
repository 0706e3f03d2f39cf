import { describe, expect, it } from 'vitest';
import {
  type ProviderSecrets,
  type ProviderSettings,
  registrationFaults,
  summarizeProvider,
} from '../../src/domain/sso/provider-registration.js';
import { providerSettings } from '../contract/provider-registry.contract.js';

const SECRETS: ProviderSecrets = { clientSecret: 's', settings: {} };

function faultPaths(settings: Partial<ProviderSettings>, secrets: ProviderSecrets = SECRETS): string[] {
  return registrationFaults(providerSettings('acme', settings), secrets).map((fault) => fault.path);
}

describe('provider registration rules', () => {
  it('accepts a complete registration', () => {
    expect(faultPaths({})).toEqual([]);
    expect(faultPaths({ clientAuth: 'private_key_jwt' }, { privateKeyJwk: '{}', settings: {} })).toEqual([]);
  });

  it.each([
    ['an id with upper case', { id: 'Acme' }, 'id'],
    ['an id starting with "-"', { id: '-acme' }, 'id'],
    ['an id of 64 characters', { id: 'a'.repeat(64) }, 'id'],
    ["the environment provider's id", { id: 'default' }, 'id'],
    ['an issuer that is no URL', { issuer: 'acme' }, 'issuer'],
    ['an issuer of another scheme', { issuer: 'ftp://idp.example' }, 'issuer'],
    ['an empty client id', { clientId: '' }, 'client-id'],
    ['no redirect URI', { redirectUris: [] }, 'redirect-uri'],
    ['a redirect URI with a fragment', { redirectUris: ['https://portal.example/cb#x'] }, 'redirect-uri'],
    ['a relative redirect URI', { redirectUris: ['/cb'] }, 'redirect-uri'],
    [
      'a redirect URI given twice',
      { redirectUris: ['https://p.example/cb', 'https://p.example/cb'] },
      'redirect-uri',
    ],
    ['no tenant', { tenants: [] }, 'tenant'],
    ['a tenant given twice', { tenants: ['t1', 't1'] }, 'tenant'],
    ['an interpreter name that is a path', { interpreter: './evil.js' }, 'interpreter'],
    ['no user level', { levels: [] }, 'levels'],
    ['the system administrator level', { levels: [8, 16] }, 'levels'],
    ['a level that does not exist', { levels: [5] }, 'levels'],
    ['an algorithm outside the list', { idTokenAlg: 'HS256' as never }, 'id-token-alg'],
    ['an unknown client authentication', { clientAuth: 'none' as never }, 'client-auth'],
  ])('refuses %s, naming the option', (_name, settings, path) => {
    expect(faultPaths(settings)).toEqual([path]);
  });

  it('needs the secret that the client authentication uses', () => {
    expect(faultPaths({}, { settings: {} })).toEqual(['client-secret-stdin']);
    expect(faultPaths({ clientAuth: 'private_key_jwt' }, { clientSecret: 's', settings: {} })).toEqual([
      'private-key-jwk-stdin',
    ]);
  });

  it('refuses a setting name that is not one', () => {
    expect(faultPaths({}, { clientSecret: 's', settings: { 'bad name': 'x' } })).toEqual(['setting']);
  });

  it('summarises a provider without any secret value', () => {
    const summary = summarizeProvider({
      ...providerSettings('acme'),
      secrets: { clientSecret: 'shh', privateKeyJwk: '{"d":"shh"}', settings: { B: 'shh', A: 'shh' } },
      createdAt: new Date(0),
      updatedAt: new Date(0),
      enabledSince: new Date(0),
    });
    expect(JSON.stringify(summary)).not.toContain('shh');
    expect(summary).toMatchObject({ hasClientSecret: true, hasPrivateKey: true, settingNames: ['A', 'B'] });
  });
});
