import type { LoginDenialReason } from '../domain/login/login-policy.js';

/**
 * What the use cases report as they go: the logging adapter writes them as structured lines; the
 * metrics and audit work can hang on the same calls. Never carries a password, token or cookie.
 */
export interface LoginEvents {
  loginSucceeded(event: { method: 'password' | 'sso'; userId: string }): void;
  loginFailed(event: {
    method: 'password' | 'sso';
    reason: LoginDenialReason | string;
    userId: string | null;
    blocked?: boolean;
  }): void;
  sessionEnded(event: { userId: string; why: string; count: number }): void;
  passwordChanged(event: { userId: string }): void;
}

export const silentLoginEvents: LoginEvents = {
  loginSucceeded: () => {},
  loginFailed: () => {},
  sessionEnded: () => {},
  passwordChanged: () => {},
};
