import type { SessionTimeouts } from '../domain/session/session.js';

export interface ProfileSettings {
  provideBackendInfo: boolean;
  passwordMaxAgeDays: number;
}

export interface SessionSettings extends SessionTimeouts, ProfileSettings {}
