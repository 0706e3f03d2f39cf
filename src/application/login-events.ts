import type { LoginDenialReason } from '../domain/login/login-policy.js';
import type { MfaMethod } from '../domain/mfa/mfa-factor.js';
import type { SessionEndReason } from '../domain/session/session-end.js';

/**
 * What the use cases report as they go: the logging adapter writes them as structured lines; the
 * metrics and audit work can hang on the same calls. Never carries a password, token or cookie.
 */
export interface LoginEvents {
  /** `provider`: the id of the provider an SSO login went through, once it was selected. */
  loginSucceeded(event: { method: 'password' | 'sso'; userId: string; provider?: string }): void;
  loginFailed(event: {
    method: 'password' | 'sso';
    reason: LoginDenialReason | string;
    userId: string | null;
    blocked?: boolean;
    provider?: string;
  }): void;
  /**
   * Sessions ended (every way a session ends: `SessionEnding`), once their unit of work committed.
   * `userId` is null when an administrator ended every user's sessions at once.
   */
  sessionEnded(event: { userId: string | null; reason: SessionEndReason; count: number }): void;
  passwordChanged(event: { userId: string }): void;
  /**
   * An attempt refused by a throttle before any password or token was checked (429). Optional: a
   * listener that does not care leaves it out. Emitted around the throttle (src/boot).
   */
  loginThrottled?(
    event:
      | { method: 'password'; operation: 'login' | 'password_change' }
      | { method: 'sso'; operation: 'backchannel_logout' },
  ): void;
  /**
   * A request carried more than one live session cookie, so none was used: a sign of a cookie
   * planted from a sibling domain. Optional, like `loginThrottled`.
   */
  sessionCookiesAmbiguous?(event: { live: number; presented: number }): void;
  /**
   * A second factor was checked (`gatehouse_mfa_total{method, outcome}`): at a login's second
   * step, a passkey login, or a confirmation of an enrolment. Optional, like `loginThrottled`.
   */
  mfaChecked?(event: { method: MfaMethod; outcome: MfaOutcome; userId: string | null }): void;
}

/** How a second-factor check ended: the `outcome` label of `gatehouse_mfa_total`. */
export type MfaOutcome = 'success' | 'invalid' | 'throttled';

/** What the session check decided (see SessionAuthenticator.authenticate). */
export type SessionCheckOutcome =
  /** A live session (its credentials not expired). */
  | 'ok'
  /** No session cookie. */
  | 'missing'
  /** A malformed, unknown or revoked session id, or the session of a disabled user. */
  | 'invalid'
  /** The session passed its idle or absolute time-out. */
  | 'expired'
  /** A live session whose credentials expired: only password change and logouts accept it. */
  | 'password_expired'
  /** A session waiting for its second factor, presented where only a full one is accepted. */
  | 'mfa_pending';

/** Told the outcome of every session check: the hot path, so implementations only count. */
export interface SessionCheckObserver {
  sessionChecked(outcome: SessionCheckOutcome): void;
}

export const ignoredSessionChecks: SessionCheckObserver = { sessionChecked: () => {} };

export const silentLoginEvents: LoginEvents = {
  loginSucceeded: () => {},
  loginFailed: () => {},
  sessionEnded: () => {},
  passwordChanged: () => {},
};
