import type { User, UserLevel } from '../user/user.js';
import { credentialExpiry } from './credential-expiry.js';

/** Spec 2.3: the login profile. Optional members are omitted when not relevant, never null. */
export interface Profile {
  user_level: UserLevel;
  is_first_login: boolean;
  platform_type?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
  language?: string;
  language_code?: string;
  emailAddress?: string;
  access_type?: number;
  read_only?: boolean;
  user_type?: string;
  is_expired?: boolean;
  expires_in?: number;
  backendName?: string;
  backendExternalName?: string;
  phoneNumber?: string;
  role?: string;
  is_enterprise?: boolean;
}

export interface ProfileOptions {
  provideBackendInfo: boolean;
  passwordMaxAgeDays: number;
  now: Date;
  isFirstLogin: boolean;
  /** `phoneNumber` belongs to the login answer only (spec 2.3). */
  includePhoneNumber: boolean;
}

function put<K extends keyof Profile>(profile: Profile, key: K, value: Profile[K] | null | undefined): void {
  if (value !== null && value !== undefined && value !== '') profile[key] = value;
}

export function buildProfile(user: User, options: ProfileOptions): Profile {
  const profile: Profile = { user_level: user.userLevel, is_first_login: options.isFirstLogin };
  put(profile, 'platform_type', user.platformType);
  // From interface version 1.11.0 the username is always returned.
  profile.username = user.username;
  put(profile, 'first_name', user.firstName);
  put(profile, 'last_name', user.lastName);
  put(profile, 'language', user.language);
  put(profile, 'language_code', user.languageCode);
  put(profile, 'emailAddress', user.emailAddress);
  put(profile, 'access_type', user.accessType);
  put(profile, 'read_only', user.readOnly);
  put(profile, 'user_type', user.userType);

  const expiry = credentialExpiry(user, options.passwordMaxAgeDays, options.now);
  if (expiry.relevant) profile.is_expired = expiry.isExpired;
  if (expiry.expiresInDays !== null) profile.expires_in = expiry.expiresInDays;

  // Spec rule 2.3.1: backend names disclose network set-up; only behind the flag and when known.
  if (options.provideBackendInfo && user.backend) {
    put(profile, 'backendName', user.backend.name);
    put(profile, 'backendExternalName', user.backend.externalName);
  }
  if (options.includePhoneNumber) put(profile, 'phoneNumber', user.phoneNumber);
  put(profile, 'role', user.role);
  put(profile, 'is_enterprise', user.isEnterprise);
  return profile;
}
