import type { Ids } from '../domain/profile/ids.js';
import type { Profile } from '../domain/profile/profile.js';

/** What both logins (and a password change) answer: the new cookie value and the spec's body. */
export interface LoginResult {
  /** The new session token for the cookie; never stored, never logged. */
  token: string;
  expiresAt: Date;
  /** Seconds until `expiresAt`: the cookie's Max-Age (a rotated session keeps its original end). */
  lifetimeS: number;
  ids: Ids;
  profile: Profile;
  userId: string;
  /** The new session's opaque handle (listing, audit trail); unrelated to the token. */
  sessionHandle: string;
}

export interface ClientInfo {
  clientAddress: string | null;
  userAgent: string | null;
}
