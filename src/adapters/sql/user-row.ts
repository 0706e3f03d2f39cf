import type { User, UserLevel } from '../../domain/user/user.js';

/** Columns selected for a user, with its backend, in every query that builds a User. */
export const USER_COLUMNS = `
  u.user_id, u.username, u.user_level, u.tenant_id, u.group_id, u.platform_type, u.first_name,
  u.last_name, u.language, u.language_code, u.email_address, u.access_type, u.read_only,
  u.user_type, u.phone_number, u.role, u.is_enterprise, u.password_hash, u.password_changed_at,
  u.must_change_password, u.credentials_expire_at, u.first_login_at, u.disabled, u.created_at,
  u.backend_name, b.external_name AS backend_external_name, u.sso_issuer AS u_sso_issuer,
  u.sso_subject AS u_sso_subject, u.sso_provider AS u_sso_provider`;

export interface UserRow {
  user_id: string;
  username: string;
  user_level: number;
  tenant_id: string | null;
  group_id: string | null;
  platform_type: string | null;
  first_name: string | null;
  last_name: string | null;
  language: string | null;
  language_code: string | null;
  email_address: string | null;
  access_type: number | null;
  read_only: boolean | null;
  user_type: string | null;
  phone_number: string | null;
  role: string | null;
  is_enterprise: boolean | null;
  password_hash: string | null;
  password_changed_at: Date | null;
  must_change_password: boolean;
  credentials_expire_at: Date | null;
  first_login_at: Date | null;
  disabled: boolean;
  created_at: Date;
  backend_name: string | null;
  backend_external_name: string | null;
  u_sso_issuer: string | null;
  u_sso_subject: string | null;
  u_sso_provider: string | null;
}

export function userFromRow(row: UserRow): User {
  return {
    userId: row.user_id,
    username: row.username,
    userLevel: row.user_level as UserLevel,
    tenantId: row.tenant_id,
    groupId: row.group_id,
    platformType: row.platform_type,
    firstName: row.first_name,
    lastName: row.last_name,
    language: row.language,
    languageCode: row.language_code,
    emailAddress: row.email_address,
    accessType: row.access_type,
    readOnly: row.read_only,
    userType: row.user_type,
    phoneNumber: row.phone_number,
    role: row.role,
    isEnterprise: row.is_enterprise,
    passwordHash: row.password_hash,
    passwordChangedAt: row.password_changed_at,
    mustChangePassword: row.must_change_password,
    credentialsExpireAt: row.credentials_expire_at,
    firstLoginAt: row.first_login_at,
    disabled: row.disabled,
    createdAt: row.created_at,
    backend: row.backend_name ? { name: row.backend_name, externalName: row.backend_external_name } : null,
    ssoIdentity:
      row.u_sso_issuer && row.u_sso_subject && row.u_sso_provider
        ? { provider: row.u_sso_provider, issuer: row.u_sso_issuer, subject: row.u_sso_subject }
        : null,
  };
}
