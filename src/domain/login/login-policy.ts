import type { User } from '../user/user.js';

/** Why a login was refused; logged and audited, never shown to the client as such. */
export const LOGIN_DENIAL_REASONS = [
  'unknown_user',
  'no_password',
  'bad_password',
  'account_disabled',
  'level_not_allowed_for_sso',
  /** A customer's provider may log in only users of that customer's tenants. */
  'tenant_not_allowed_for_provider',
  /** The user is bound to another provider account, or the provider account to another user. */
  'sso_account_mismatch',
] as const;

export type LoginDenialReason = (typeof LOGIN_DENIAL_REASONS)[number];

export interface LoginAttempt {
  method: 'password' | 'sso';
  user: User | null;
  /** Result of the password verification (password logins only). */
  passwordVerified?: boolean;
  ssoUserLevels?: readonly number[];
  /** The tenants whose users the SSO provider may log in; null or absent: any (the environment's). */
  ssoTenants?: readonly string[] | null;
}

export interface LoginCheck {
  readonly name: string;
  /** Null to allow, a reason to deny. */
  check(attempt: LoginAttempt): LoginDenialReason | null;
}

export const accountExists: LoginCheck = {
  name: 'account-exists',
  check: (attempt) => (attempt.user ? null : 'unknown_user'),
};

export const hasPassword: LoginCheck = {
  name: 'has-password',
  check: (attempt) => (attempt.user?.passwordHash ? null : 'no_password'),
};

export const passwordVerified: LoginCheck = {
  name: 'password-verified',
  check: (attempt) => (attempt.passwordVerified ? null : 'bad_password'),
};

export const accountEnabled: LoginCheck = {
  name: 'account-enabled',
  check: (attempt) => (attempt.user && !attempt.user.disabled ? null : 'account_disabled'),
};

export const ssoLevelAllowed: LoginCheck = {
  name: 'sso-level-allowed',
  check: (attempt) =>
    attempt.user && (attempt.ssoUserLevels ?? []).includes(attempt.user.userLevel)
      ? null
      : 'level_not_allowed_for_sso',
};

/**
 * One customer's provider logs in only that customer's users (contract 6a): a user of another
 * tenant, or of none (a system administrator), is refused even when group and username match.
 */
export const ssoTenantAllowed: LoginCheck = {
  name: 'sso-tenant-allowed',
  check: (attempt) => {
    const tenants = attempt.ssoTenants ?? null;
    if (tenants === null) return null;
    const tenant = attempt.user?.tenantId ?? null;
    return tenant !== null && tenants.includes(tenant) ? null : 'tenant_not_allowed_for_provider';
  },
};

/**
 * Whether a provider with these rules still admits the user: its tenant and level checks, as a
 * login applies them. A provider narrowed (`--tenant`, `--levels`) ends the sessions of the users
 * it no longer admits.
 */
export function ssoAdmits(
  user: User,
  rules: { levels: readonly number[]; tenants: readonly string[] | null },
): boolean {
  const attempt: LoginAttempt = {
    method: 'sso',
    user,
    ssoUserLevels: rules.levels,
    ssoTenants: rules.tenants,
  };
  return ssoTenantAllowed.check(attempt) === null && ssoLevelAllowed.check(attempt) === null;
}

/** An ordered list of named checks; the first denial wins. Extend by composing another list. */
export class LoginPolicy {
  constructor(readonly checks: readonly LoginCheck[]) {}

  evaluate(
    attempt: LoginAttempt,
  ): { allowed: true } | { allowed: false; reason: LoginDenialReason; check: string } {
    for (const check of this.checks) {
      const reason = check.check(attempt);
      if (reason) return { allowed: false, reason, check: check.name };
    }
    return { allowed: true };
  }

  static forPasswordLogin(): LoginPolicy {
    return new LoginPolicy([accountExists, hasPassword, passwordVerified, accountEnabled]);
  }

  static forSsoLogin(): LoginPolicy {
    return new LoginPolicy([accountExists, accountEnabled, ssoTenantAllowed, ssoLevelAllowed]);
  }
}
