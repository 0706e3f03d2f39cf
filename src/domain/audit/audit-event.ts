import type { LoginMethod } from '../session/session.js';

/** What happened. Stable names: operators query on them (docs/operations.md lists each). */
export type AuditEventName =
  | 'login'
  | 'logout'
  | 'sso_logout'
  | 'provider_logout'
  | 'password_change'
  | 'session_revoked'
  | 'session_expired'
  | 'login_throttled'
  | 'user_disabled'
  | 'user_enabled'
  | 'sso_binding_reset'
  | 'provider_added'
  | 'provider_updated'
  | 'provider_disabled'
  | 'provider_enabled'
  | 'provider_removed'
  /** Second factors (contract 3b); `reason` names the method (`totp`, `webauthn`, `recovery_code`). */
  | 'mfa_enrolled'
  | 'mfa_removed'
  /** A second factor finished a login (success) or was refused (failure, `reason` the method). */
  | 'mfa_verified'
  /** One recovery code was used up (beside its `mfa_verified`): the user has one fewer. */
  | 'recovery_code_used'
  | 'recovery_codes_regenerated'
  /** `gatehouse user reset-mfa`: every factor and recovery code removed. */
  | 'mfa_reset';

/** Who caused it: the user themself, an administrator (CLI), the OpenID provider, or the service. */
export type AuditActor = 'user' | 'administrator' | 'provider' | 'system';

/** Why a session was revoked (`session_revoked` events). */
export type SessionRevocationReason =
  | 'self'
  | 'administrator'
  | 'password_change'
  | 'backchannel_logout'
  | 'user_disabled'
  /** A login was sent with this session's cookie: the new session replaces it (fixation defence). */
  | 'replaced_by_login'
  /** A login beyond SESSIONS_PER_USER_MAX ended the user's least recently used session. */
  | 'session_limit'
  /** The pending session was replaced by the full one its second factor earned. */
  | 'mfa_completed'
  /** A factor was added or removed: the user's other sessions end, as after a password change. */
  | 'factor_changed';

/**
 * One audit record as the use cases write it. Never a secret: no password, no cookie value or
 * its hash, no provider token. `reason` is a code, never free text.
 */
export interface AuditEvent {
  occurredAt: Date;
  event: AuditEventName;
  outcome: 'success' | 'failure';
  reason: string | null;
  userId: string | null;
  /**
   * The account's own username, set only when the event concerns an existing account. A login
   * for an unknown username records null: what was typed into the username field is the user's
   * input, and people do type their password there.
   */
  username: string | null;
  actor: AuditActor;
  /** The opaque session handle (as listed to users), never the cookie value or its hash. */
  sessionHandle: string | null;
  /** How many sessions the event ended, for revocations. */
  sessionCount: number | null;
  clientAddress: string | null;
  method: LoginMethod | null;
  /** The registered OpenID provider the event concerns (its id), when it concerns one. */
  providerId: string | null;
}

/** A stored event, as read back. */
export interface AuditRecord extends AuditEvent {
  id: string;
}

/** Fills the columns an event leaves out with null. */
export function auditEvent(
  event: Pick<AuditEvent, 'occurredAt' | 'event' | 'actor'> & Partial<AuditEvent>,
): AuditEvent {
  return {
    outcome: 'success',
    reason: null,
    userId: null,
    username: null,
    sessionHandle: null,
    sessionCount: null,
    clientAddress: null,
    method: null,
    providerId: null,
    ...event,
  };
}

/** The account columns of an event: both null when no account matched. */
export function auditAccount(user: { userId: string; username: string } | null): {
  userId: string | null;
  username: string | null;
} {
  return { userId: user?.userId ?? null, username: user?.username ?? null };
}
