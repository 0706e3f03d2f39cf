/** User levels of spec section 2.3. */
export const USER_LEVELS = {
  END_USER: 0,
  DEPARTMENT_ADMIN: 4,
  GROUP_ADMIN: 8,
  TENANT_ADMIN: 12,
  SYSTEM_ADMIN: 16,
} as const;

export type UserLevel = (typeof USER_LEVELS)[keyof typeof USER_LEVELS];

export const ALL_USER_LEVELS: readonly UserLevel[] = Object.values(USER_LEVELS);

export function isUserLevel(value: number): value is UserLevel {
  return (ALL_USER_LEVELS as readonly number[]).includes(value);
}

/** A main application server hosting users (spec: backendName / backendExternalName). */
export interface Backend {
  name: string;
  externalName: string | null;
}

/** The optional profile attributes of spec section 2.3, as stored. `null` means "not set". */
export interface UserAttributes {
  platformType: string | null;
  firstName: string | null;
  lastName: string | null;
  language: string | null;
  languageCode: string | null;
  emailAddress: string | null;
  accessType: number | null;
  readOnly: boolean | null;
  userType: string | null;
  phoneNumber: string | null;
  role: string | null;
  isEnterprise: boolean | null;
}

/** A local account as the domain sees it. The password hash never leaves the user repository's callers. */
export interface User extends UserAttributes {
  /** The spec's `user_id`: stable, opaque, generated when not imported. */
  userId: string;
  username: string;
  userLevel: UserLevel;
  tenantId: string | null;
  groupId: string | null;
  backend: Backend | null;
  passwordHash: string | null;
  /** When the current password was set; the base of PASSWORD_MAX_AGE_DAYS. */
  passwordChangedAt: Date | null;
  /** Administrator-set password: must be changed at first login (ASVS 6.4.1). */
  mustChangePassword: boolean;
  /** An explicit credentials expiry date (`gatehouse user expire`). */
  credentialsExpireAt: Date | null;
  /** Null until the first successful login of either kind. */
  firstLoginAt: Date | null;
  disabled: boolean;
  createdAt: Date;
  /**
   * The provider account this user is bound to: recorded at the first SSO login, and from then on
   * the only one that may log in as this user. Null until then, or after an administrator's
   * `gatehouse user reset-sso`.
   */
  ssoIdentity: ProviderAccount | null;
}

/**
 * An account at an OpenID provider: the provider it came through (registry id, or `default`), its
 * issuer and its `sub`, the stable identifier (OIDC Core 5.7). The provider id namespaces the
 * account (ASVS 6.8.1): two customers' providers may share an issuer, never an account.
 */
export interface ProviderAccount {
  provider: string;
  issuer: string;
  subject: string;
}

export const EMPTY_ATTRIBUTES: UserAttributes = {
  platformType: null,
  firstName: null,
  lastName: null,
  language: null,
  languageCode: null,
  emailAddress: null,
  accessType: null,
  readOnly: null,
  userType: null,
  phoneNumber: null,
  role: null,
  isEnterprise: null,
};
