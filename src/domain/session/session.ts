import type { User } from '../user/user.js';
import type { SessionAuth } from './session-auth.js';

export type LoginMethod = 'password' | 'sso';

/**
 * Where an SSO session came from: the provider it logged in through (its registry id, or
 * `default` for the environment's) and that provider's issuer. Two providers may share an issuer
 * (two clients of one identity service), so the provider id is what keeps customers apart.
 */
export interface SsoOrigin {
  provider: string;
  issuer: string;
}

/** Which provider session an SSO session belongs to (back-channel logout finds it by these). */
export interface SsoSessionRef extends SsoOrigin {
  subject: string;
  sid: string | null;
}

/**
 * The provider's tokens, kept for the provider logout (contract 6). Written with the session and
 * read back only when it ends: a session check never carries them.
 */
export interface ProviderTokens {
  idToken: string | null;
  /** Encrypted at rest (TOKEN_ENCRYPTION_KEY); opaque to the domain. */
  accessTokenSealed: string | null;
  refreshTokenSealed: string | null;
}

export type SsoSessionData = SsoSessionRef & ProviderTokens;

export interface SessionRecord {
  /** SHA-256 of the cookie value, hex. The cookie value itself is never stored. */
  tokenHash: string;
  /** Opaque handle for listing and ending sessions; unrelated to the cookie value. */
  handle: string;
  userId: string;
  method: LoginMethod;
  createdAt: Date;
  lastSeenAt: Date;
  /** Absolute end of life. */
  expiresAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
  sso: SsoSessionRef | null;
  /**
   * How and when it was made, and whether it still waits for a second factor (contract 3b).
   * Every session made now has it; one stored before second factors existed has none, and reads
   * as its login method says (`sessionAuthOf`).
   */
  auth?: SessionAuth;
}

/** A session with everything stored for it: what is created, and what ending one returns. */
export interface StoredSession extends Omit<SessionRecord, 'sso'> {
  sso: SsoSessionData | null;
}

export interface SessionWithUser {
  session: SessionRecord;
  user: User;
}

export interface SessionTimeouts {
  idleTimeoutS: number;
  absoluteTimeoutS: number;
}

/** Which time-out ended a session, or null while it is alive. */
export type SessionTimeout = 'absolute_timeout' | 'idle_timeout';

/** Idle (sliding) and absolute time-outs, enforced server-side (ASVS 7.3.1, 7.3.2). */
export function sessionTimedOut(
  session: SessionRecord,
  timeouts: SessionTimeouts,
  now: Date,
): SessionTimeout | null {
  const t = now.getTime();
  if (t >= session.expiresAt.getTime()) return 'absolute_timeout';
  return t < session.lastSeenAt.getTime() + timeouts.idleTimeoutS * 1000 ? null : 'idle_timeout';
}

export function isSessionAlive(session: SessionRecord, timeouts: SessionTimeouts, now: Date): boolean {
  return sessionTimedOut(session, timeouts, now) === null;
}

/** Last-seen is written at most once a minute per session, so a check is normally a read only. */
export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;

export function isLastSeenDue(session: SessionRecord, now: Date): boolean {
  return now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_WRITE_INTERVAL_MS;
}

/**
 * How long a store keeps a session past its time-out: one presented again within it still ends
 * with its `session_expired` audit record (as on a store whose purge runs every few minutes).
 */
export const EXPIRED_SESSION_GRACE_MS = 10 * 60_000;

/** When a store may forget the session: its earlier time-out, plus the grace. */
export function sessionKeepUntil(
  session: Pick<SessionRecord, 'expiresAt' | 'lastSeenAt'>,
  idleTimeoutS: number,
): Date {
  const ends = Math.min(session.expiresAt.getTime(), session.lastSeenAt.getTime() + idleTimeoutS * 1000);
  return new Date(ends + EXPIRED_SESSION_GRACE_MS);
}

/** What a lookup or a list gives: the session without the provider's tokens. */
export function withoutProviderTokens(session: StoredSession): SessionRecord {
  if (!session.sso) return { ...session, sso: null };
  const { provider, issuer, subject, sid } = session.sso;
  return { ...session, sso: { provider, issuer, subject, sid } };
}
