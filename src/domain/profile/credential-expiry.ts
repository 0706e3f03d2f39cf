import type { User } from '../user/user.js';

const DAY_MS = 86_400_000;

export interface CredentialExpiryStatus {
  /** True when every request but a password change or a logout must be refused. */
  isExpired: boolean;
  /** Whole days left before the login expires (0 on the last day); null when no deadline applies. */
  expiresInDays: number | null;
  /** True when expiry is in play for this user (a deadline exists or a change is required). */
  relevant: boolean;
}

/**
 * Login expiration (spec 2.3 `is_expired` / `expires_in`, contract 3a and 5): a maximum password
 * age (off when 0), an explicit expiry date, and the administrator-set "must change" mark.
 */
export function credentialExpiry(
  user: Pick<User, 'passwordChangedAt' | 'credentialsExpireAt' | 'mustChangePassword' | 'createdAt'>,
  passwordMaxAgeDays: number,
  now: Date,
): CredentialExpiryStatus {
  const deadlines: number[] = [];
  if (passwordMaxAgeDays > 0) {
    const base = (user.passwordChangedAt ?? user.createdAt).getTime();
    deadlines.push(base + passwordMaxAgeDays * DAY_MS);
  }
  if (user.credentialsExpireAt) deadlines.push(user.credentialsExpireAt.getTime());

  const deadline = deadlines.length > 0 ? Math.min(...deadlines) : null;
  const passed = deadline !== null && now.getTime() >= deadline;
  const expiresInDays =
    deadline === null ? null : Math.max(0, Math.floor((deadline - now.getTime()) / DAY_MS));
  return {
    isExpired: passed || user.mustChangePassword,
    expiresInDays: deadline === null ? null : passed ? 0 : expiresInDays,
    relevant: deadline !== null || user.mustChangePassword,
  };
}
