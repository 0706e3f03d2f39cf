import { describe, expect, it } from 'vitest';
import { idsFor } from '../../src/domain/profile/ids.js';
import { buildProfile, type ProfileOptions } from '../../src/domain/profile/profile.js';
import { EMPTY_ATTRIBUTES, type User, type UserLevel } from '../../src/domain/user/user.js';

const NOW = new Date('2024-06-15T12:00:00.000Z');
const DAY_MS = 86_400_000;

function user(overrides: Partial<User> = {}): User {
  return {
    ...EMPTY_ATTRIBUTES,
    userId: 'u-1',
    username: 'ann',
    userLevel: 0,
    tenantId: 't1',
    groupId: 'g1',
    backend: null,
    passwordHash: 'irrelevant',
    passwordChangedAt: new Date('2024-06-01T12:00:00.000Z'),
    mustChangePassword: false,
    credentialsExpireAt: null,
    firstLoginAt: null,
    disabled: false,
    createdAt: new Date('2024-01-01T00:00:00.000Z'),
    ssoIdentity: null,
    ...overrides,
  };
}

const options: ProfileOptions = {
  provideBackendInfo: false,
  passwordMaxAgeDays: 0,
  now: NOW,
  isFirstLogin: false,
  includePhoneNumber: false,
};

describe('idsFor', () => {
  const full = { tenantId: 't1', groupId: 'g1', userId: 'u-1' };

  it.each<[UserLevel, Record<string, string>]>([
    [0, { tenant_id: 't1', group_id: 'g1', user_id: 'u-1' }],
    [4, { tenant_id: 't1', group_id: 'g1' }],
    [8, { tenant_id: 't1', group_id: 'g1' }],
    [12, { tenant_id: 't1' }],
    [16, {}],
  ])('level %i gives exactly the ids of that level', (userLevel, expected) => {
    expect(idsFor({ ...full, userLevel })).toStrictEqual(expected);
  });

  it('omits a level id that is not set, never null', () => {
    expect(idsFor({ userLevel: 0, tenantId: null, groupId: null, userId: 'u-1' })).toStrictEqual({
      user_id: 'u-1',
    });
    expect(idsFor({ userLevel: 4, tenantId: 't1', groupId: null, userId: 'u-1' })).toStrictEqual({
      tenant_id: 't1',
    });
    expect(idsFor({ userLevel: 8, tenantId: null, groupId: 'g1', userId: 'u-1' })).toStrictEqual({
      group_id: 'g1',
    });
    expect(idsFor({ userLevel: 12, tenantId: null, groupId: 'g1', userId: 'u-1' })).toStrictEqual({});
    const ids = idsFor({ userLevel: 0, tenantId: null, groupId: null, userId: 'u-1' });
    expect(Object.values(ids)).not.toContain(null);
    expect(Object.values(ids)).not.toContain(undefined);
  });
});

describe('buildProfile', () => {
  it('gives user_level, is_first_login and username only for a bare user', () => {
    expect(buildProfile(user(), options)).toStrictEqual({
      user_level: 0,
      is_first_login: false,
      username: 'ann',
    });
    expect(buildProfile(user({ userLevel: 16 }), { ...options, isFirstLogin: true })).toStrictEqual({
      user_level: 16,
      is_first_login: true,
      username: 'ann',
    });
  });

  it('gives every optional field that is set, under the spec names', () => {
    const profile = buildProfile(
      user({
        platformType: 'pbx',
        firstName: 'Ann',
        lastName: 'Lee',
        language: 'English',
        languageCode: 'en',
        emailAddress: 'ann@example.com',
        accessType: 3,
        readOnly: true,
        userType: 'agent',
        phoneNumber: '+33 1 2',
        role: 'supervisor',
        isEnterprise: true,
        backend: { name: 'be-1', externalName: 'Paris Main Server' },
      }),
      { ...options, includePhoneNumber: true, provideBackendInfo: true },
    );
    expect(profile).toStrictEqual({
      user_level: 0,
      is_first_login: false,
      platform_type: 'pbx',
      username: 'ann',
      first_name: 'Ann',
      last_name: 'Lee',
      language: 'English',
      language_code: 'en',
      emailAddress: 'ann@example.com',
      access_type: 3,
      read_only: true,
      user_type: 'agent',
      backendName: 'be-1',
      backendExternalName: 'Paris Main Server',
      phoneNumber: '+33 1 2',
      role: 'supervisor',
      is_enterprise: true,
    });
  });

  it('omits empty strings and nulls, never sends them', () => {
    const profile = buildProfile(
      user({
        platformType: '',
        firstName: '',
        lastName: null,
        language: '',
        languageCode: '',
        emailAddress: '',
        userType: '',
        phoneNumber: '',
        role: '',
        backend: { name: 'be-1', externalName: null },
      }),
      { ...options, includePhoneNumber: true, provideBackendInfo: true },
    );
    expect(profile).toStrictEqual({
      user_level: 0,
      is_first_login: false,
      username: 'ann',
      backendName: 'be-1',
    });
    for (const value of Object.values(profile)) {
      expect(value).not.toBeNull();
      expect(value).not.toBe('');
    }
  });

  it('keeps falsy values that carry meaning: access_type 0, read_only and is_enterprise false', () => {
    const profile = buildProfile(user({ accessType: 0, readOnly: false, isEnterprise: false }), options);
    expect(profile.access_type).toBe(0);
    expect(profile.read_only).toBe(false);
    expect(profile.is_enterprise).toBe(false);
  });

  it('always gives the username', () => {
    expect(buildProfile(user({ username: 'Bob.Smith' }), options).username).toBe('Bob.Smith');
  });

  it('gives phoneNumber only with includePhoneNumber (the login answer)', () => {
    const withPhone = user({ phoneNumber: '+33 1 2' });
    expect(buildProfile(withPhone, { ...options, includePhoneNumber: true }).phoneNumber).toBe('+33 1 2');
    expect(buildProfile(withPhone, { ...options, includePhoneNumber: false })).not.toHaveProperty(
      'phoneNumber',
    );
    expect(buildProfile(user(), { ...options, includePhoneNumber: true })).not.toHaveProperty('phoneNumber');
  });

  it('gives backend names only with provideBackendInfo and a backend', () => {
    const hosted = user({ backend: { name: 'be-1', externalName: 'Paris' } });
    const shown = buildProfile(hosted, { ...options, provideBackendInfo: true });
    expect(shown.backendName).toBe('be-1');
    expect(shown.backendExternalName).toBe('Paris');

    const hidden = buildProfile(hosted, { ...options, provideBackendInfo: false });
    expect(hidden).not.toHaveProperty('backendName');
    expect(hidden).not.toHaveProperty('backendExternalName');

    const noBackend = buildProfile(user(), { ...options, provideBackendInfo: true });
    expect(noBackend).not.toHaveProperty('backendName');
    expect(noBackend).not.toHaveProperty('backendExternalName');
  });

  describe('is_expired and expires_in', () => {
    it('are both absent when login expiration is off and no change is required', () => {
      const profile = buildProfile(user(), options);
      expect(profile).not.toHaveProperty('is_expired');
      expect(profile).not.toHaveProperty('expires_in');
    });

    it('give is_expired false and the whole days left when a maximum age applies', () => {
      // Changed 14 days before NOW; 90 days allowed: 76 days left.
      const profile = buildProfile(user(), { ...options, passwordMaxAgeDays: 90 });
      expect(profile.is_expired).toBe(false);
      expect(profile.expires_in).toBe(76);
    });

    it('give is_expired true and expires_in 0 once the maximum age has passed', () => {
      const profile = buildProfile(user(), { ...options, passwordMaxAgeDays: 14 });
      expect(profile.is_expired).toBe(true);
      expect(profile.expires_in).toBe(0);
    });

    it('give is_expired true without expires_in for an administrator-set password', () => {
      const profile = buildProfile(user({ mustChangePassword: true }), options);
      expect(profile.is_expired).toBe(true);
      expect(profile).not.toHaveProperty('expires_in');
    });

    it('follow an explicit expiry date even with the maximum age off', () => {
      const soon = buildProfile(user({ credentialsExpireAt: new Date(NOW.getTime() + 3 * DAY_MS) }), options);
      expect(soon.is_expired).toBe(false);
      expect(soon.expires_in).toBe(3);
      const past = buildProfile(user({ credentialsExpireAt: new Date(NOW.getTime() - 1) }), options);
      expect(past.is_expired).toBe(true);
      expect(past.expires_in).toBe(0);
    });
  });
});
