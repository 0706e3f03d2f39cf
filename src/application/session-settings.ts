import type { SessionTimeouts } from '../domain/session/session.js';

export interface ProfileSettings {
  provideBackendInfo: boolean;
  passwordMaxAgeDays: number;
}

export interface SessionSettings extends SessionTimeouts, ProfileSettings {
  /** SESSIONS_PER_USER_MAX (ASVS 7.1.2): a login beyond it ends the user's least recently used session. */
  perUserMax: number;
}
