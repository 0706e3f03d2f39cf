import type { AuditActor, AuditEventName } from '../audit/audit-event.js';

/**
 * Why sessions end: the `reason` label of `gatehouse_sessions_ended_total` and of the
 * `session_ended` log line. A fixed list, so a label never carries free text. A domain fact, not a
 * use case's: the events port, the metrics and the ending of sessions all name these reasons, and
 * none of them needs another to know the list.
 */
export const SESSION_END_REASONS = [
  'logout',
  'sso_logout',
  'backchannel_logout',
  /** The user ended one of their sessions by handle. */
  'revoked',
  /** The user ended all their other sessions. */
  'revoked_others',
  /** The user's or an administrator's password change (the rotated session included). */
  'password_changed',
  'user_disabled',
  /** The SSO session's provider was disabled or removed (`gatehouse provider disable`, `remove`). */
  'provider_disabled',
  /** The provider no longer admits the user (`gatehouse provider update --tenant`/`--levels`). */
  'provider_narrowed',
  /** The user's provider binding was reset (`gatehouse user reset-sso`): its sessions through it end. */
  'sso_binding_reset',
  /** An administrator's revocation (one session, a user's, or everyone's). */
  'administrator',
  /** A login beyond SESSIONS_PER_USER_MAX ended the least recently used session. */
  'session_limit',
  /** A login was sent with this session's cookie (fixation defence). */
  'replaced_by_login',
  /** The pending session of a login ended: its second factor earned a full session (a new id). */
  'mfa_completed',
  /** The user added or removed a second factor: their other sessions end (ASVS 7.4.3). */
  'factor_changed',
  'idle_timeout',
  'absolute_timeout',
] as const;

export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** The audit record a reason writes, unless the cause says otherwise. */
export interface SessionEndAudit {
  event: AuditEventName;
  actor: AuditActor;
  reason: string | null;
}

/** The audit record each reason writes: one table, so a new reason cannot go unaudited. */
export const SESSION_END_AUDIT: Readonly<Record<SessionEndReason, SessionEndAudit>> = {
  logout: { event: 'logout', actor: 'user', reason: null },
  sso_logout: { event: 'sso_logout', actor: 'user', reason: null },
  backchannel_logout: { event: 'session_revoked', actor: 'provider', reason: 'backchannel_logout' },
  revoked: { event: 'session_revoked', actor: 'user', reason: 'self' },
  revoked_others: { event: 'session_revoked', actor: 'user', reason: 'self' },
  password_changed: { event: 'session_revoked', actor: 'user', reason: 'password_change' },
  user_disabled: { event: 'session_revoked', actor: 'administrator', reason: 'user_disabled' },
  provider_disabled: { event: 'session_revoked', actor: 'administrator', reason: 'provider_disabled' },
  provider_narrowed: { event: 'session_revoked', actor: 'administrator', reason: 'provider_narrowed' },
  sso_binding_reset: { event: 'session_revoked', actor: 'administrator', reason: 'sso_binding_reset' },
  administrator: { event: 'session_revoked', actor: 'administrator', reason: 'administrator' },
  session_limit: { event: 'session_revoked', actor: 'system', reason: 'session_limit' },
  replaced_by_login: { event: 'session_revoked', actor: 'user', reason: 'replaced_by_login' },
  mfa_completed: { event: 'session_revoked', actor: 'user', reason: 'mfa_completed' },
  factor_changed: { event: 'session_revoked', actor: 'user', reason: 'factor_changed' },
  idle_timeout: { event: 'session_expired', actor: 'system', reason: 'idle_timeout' },
  absolute_timeout: { event: 'session_expired', actor: 'system', reason: 'absolute_timeout' },
};

/**
 * The logouts' own records name the session but no count: the event itself says "one".
 */
export const UNCOUNTED_END_REASONS: ReadonlySet<SessionEndReason> = new Set(['logout', 'sso_logout']);
