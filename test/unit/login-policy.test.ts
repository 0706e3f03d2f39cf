import { describe, expect, it } from 'vitest';
import {
  accountEnabled,
  accountExists,
  type LoginAttempt,
  type LoginCheck,
  LoginPolicy,
} from '../../src/domain/login/login-policy.js';
import { EMPTY_ATTRIBUTES, type User } from '../../src/domain/user/user.js';

function user(overrides: Partial<User> = {}): User {
  return {
    ...EMPTY_ATTRIBUTES,
    userId: 'u-1',
    username: 'ann',
    userLevel: 8,
    tenantId: 't1',
    groupId: 'g1',
    backend: null,
    passwordHash: '$argon2id$stored',
    passwordChangedAt: null,
    mustChangePassword: false,
    credentialsExpireAt: null,
    firstLoginAt: null,
    disabled: false,
    createdAt: new Date('2024-01-01T00:00:00.000Z'),
    ssoIdentity: null,
    ...overrides,
  };
}

describe('LoginPolicy.forPasswordLogin', () => {
  const policy = LoginPolicy.forPasswordLogin();

  it('runs its checks in a fixed order', () => {
    expect(policy.checks.map((check) => check.name)).toEqual([
      'account-exists',
      'has-password',
      'password-verified',
      'account-enabled',
    ]);
  });

  it('allows an enabled user whose password verified', () => {
    expect(policy.evaluate({ method: 'password', user: user(), passwordVerified: true })).toEqual({
      allowed: true,
    });
  });

  it.each<[string, LoginAttempt, string, string]>([
    [
      'an unknown user',
      { method: 'password', user: null, passwordVerified: false },
      'unknown_user',
      'account-exists',
    ],
    [
      'an unknown user even if verification claimed success',
      { method: 'password', user: null, passwordVerified: true },
      'unknown_user',
      'account-exists',
    ],
    [
      'a user without a password',
      { method: 'password', user: user({ passwordHash: null }), passwordVerified: false },
      'no_password',
      'has-password',
    ],
    [
      'a user without a password (disabled too)',
      { method: 'password', user: user({ passwordHash: null, disabled: true }), passwordVerified: false },
      'no_password',
      'has-password',
    ],
    [
      'a wrong password',
      { method: 'password', user: user(), passwordVerified: false },
      'bad_password',
      'password-verified',
    ],
    [
      'a missing verification result',
      { method: 'password', user: user() },
      'bad_password',
      'password-verified',
    ],
    [
      'a wrong password on a disabled account (password checked first)',
      { method: 'password', user: user({ disabled: true }), passwordVerified: false },
      'bad_password',
      'password-verified',
    ],
    [
      'a disabled account with the right password',
      { method: 'password', user: user({ disabled: true }), passwordVerified: true },
      'account_disabled',
      'account-enabled',
    ],
  ])('denies %s', (_label, attempt, reason, check) => {
    expect(policy.evaluate(attempt)).toEqual({ allowed: false, reason, check });
  });
});

describe('LoginPolicy.forSsoLogin', () => {
  const policy = LoginPolicy.forSsoLogin();

  it('runs its checks in a fixed order and ignores passwords', () => {
    expect(policy.checks.map((check) => check.name)).toEqual([
      'account-exists',
      'account-enabled',
      'sso-tenant-allowed',
      'sso-level-allowed',
    ]);
    expect(
      policy.evaluate({ method: 'sso', user: user({ passwordHash: null }), ssoUserLevels: [8] }),
    ).toEqual({ allowed: true });
  });

  it('allows exactly the configured levels', () => {
    for (const level of [0, 4, 8, 12, 16] as const) {
      const attempt: LoginAttempt = {
        method: 'sso',
        user: user({ userLevel: level }),
        ssoUserLevels: [8, 12],
      };
      expect(policy.evaluate(attempt).allowed).toBe(level === 8 || level === 12);
    }
    expect(policy.evaluate({ method: 'sso', user: user({ userLevel: 0 }), ssoUserLevels: [8] })).toEqual({
      allowed: false,
      reason: 'level_not_allowed_for_sso',
      check: 'sso-level-allowed',
    });
  });

  it("a customer's provider allows only its tenants' users: another tenant's, or none (system admin), is refused", () => {
    const attempt = (overrides: Partial<User>, ssoTenants: readonly string[] | null): LoginAttempt => ({
      method: 'sso',
      user: user(overrides),
      ssoUserLevels: [8, 16],
      ssoTenants,
    });
    expect(policy.evaluate(attempt({ tenantId: 't1' }, ['t1', 't2'])).allowed).toBe(true);
    expect(policy.evaluate(attempt({ tenantId: 't3' }, ['t1', 't2']))).toEqual({
      allowed: false,
      reason: 'tenant_not_allowed_for_provider',
      check: 'sso-tenant-allowed',
    });
    expect(policy.evaluate(attempt({ tenantId: null, groupId: null, userLevel: 16 }, ['t1'])).allowed).toBe(
      false,
    );
    // The environment's provider (no tenant list) and a login without a list: any tenant.
    expect(policy.evaluate(attempt({ tenantId: 't3' }, null)).allowed).toBe(true);
    expect(
      policy.evaluate({ method: 'sso', user: user({ tenantId: 't3' }), ssoUserLevels: [8] }).allowed,
    ).toBe(true);
  });

  it('allows no level when no list is given', () => {
    expect(policy.evaluate({ method: 'sso', user: user() })).toEqual({
      allowed: false,
      reason: 'level_not_allowed_for_sso',
      check: 'sso-level-allowed',
    });
    expect(policy.evaluate({ method: 'sso', user: user(), ssoUserLevels: [] }).allowed).toBe(false);
  });

  it('denies an unknown user, then a disabled one, before looking at the level', () => {
    expect(policy.evaluate({ method: 'sso', user: null, ssoUserLevels: [8] })).toEqual({
      allowed: false,
      reason: 'unknown_user',
      check: 'account-exists',
    });
    expect(
      policy.evaluate({ method: 'sso', user: user({ disabled: true, userLevel: 0 }), ssoUserLevels: [8] }),
    ).toEqual({ allowed: false, reason: 'account_disabled', check: 'account-enabled' });
  });
});

describe('LoginPolicy composition', () => {
  it('stops at the first denial and names the check', () => {
    const seen: string[] = [];
    const spy = (name: string, deny: boolean): LoginCheck => ({
      name,
      check: () => {
        seen.push(name);
        return deny ? 'account_disabled' : null;
      },
    });
    const policy = new LoginPolicy([spy('a', false), spy('b', true), spy('c', true)]);
    expect(policy.evaluate({ method: 'password', user: user() })).toEqual({
      allowed: false,
      reason: 'account_disabled',
      check: 'b',
    });
    expect(seen).toEqual(['a', 'b']);
  });

  it('extends by composing another list', () => {
    const policy = new LoginPolicy([accountExists, accountEnabled]);
    expect(policy.evaluate({ method: 'password', user: user() })).toEqual({ allowed: true });
    expect(policy.evaluate({ method: 'password', user: null }).allowed).toBe(false);
    expect(new LoginPolicy([]).evaluate({ method: 'password', user: null })).toEqual({ allowed: true });
  });
});
