import { type CredentialExpiryStatus, credentialExpiry } from '../domain/profile/credential-expiry.js';
import { type Ids, idsFor } from '../domain/profile/ids.js';
import { buildProfile, type Profile } from '../domain/profile/profile.js';
import { isLastSeenDue, isSessionAlive, type SessionRecord } from '../domain/session/session.js';
import { hashSessionToken, isWellFormedSessionToken } from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { User } from '../domain/user/user.js';
import { ignoredSessionChecks, type SessionCheckObserver } from './login-events.js';
import type { SessionSettings } from './session-settings.js';

export interface AuthenticatedSession {
  session: SessionRecord;
  user: User;
  tokenHash: string;
  credentials: CredentialExpiryStatus;
}

export interface SessionView {
  ids: Ids;
  profile: Profile;
}

function notAuthenticated(): DomainError {
  return new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
}

/**
 * The session check every authenticated request pays (the hot path): one indexed lookup, no write
 * unless last-seen is due. Revocation is honoured at once because nothing is cached.
 */
export class SessionAuthenticator {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: SessionSettings,
    private readonly checks: SessionCheckObserver = ignoredSessionChecks,
  ) {}

  async authenticate(token: string | null | undefined): Promise<AuthenticatedSession> {
    if (!token) {
      this.checks.sessionChecked('missing');
      throw notAuthenticated();
    }
    if (!isWellFormedSessionToken(token)) {
      this.checks.sessionChecked('invalid');
      throw notAuthenticated();
    }
    const tokenHash = hashSessionToken(token);
    const found = await this.store.sessions.findByTokenHash(tokenHash);
    if (!found) {
      this.checks.sessionChecked('invalid');
      throw notAuthenticated();
    }
    const now = this.clock.now();
    if (found.user.disabled || !isSessionAlive(found.session, this.settings, now)) {
      this.checks.sessionChecked(found.user.disabled ? 'invalid' : 'expired');
      await this.store.sessions.deleteByTokenHash(tokenHash);
      throw notAuthenticated();
    }
    if (isLastSeenDue(found.session, now)) await this.store.sessions.touch(tokenHash, now);
    const credentials = credentialExpiry(found.user, this.settings.passwordMaxAgeDays, now);
    this.checks.sessionChecked(credentials.isExpired ? 'password_expired' : 'ok');
    return { session: found.session, user: found.user, tokenHash, credentials };
  }

  /** `GET /api/v1/session/`: the spec's body without `phoneNumber` (login answer only). */
  view(authenticated: AuthenticatedSession): SessionView {
    const { user, session } = authenticated;
    return {
      ids: idsFor(user),
      profile: buildProfile(user, {
        provideBackendInfo: this.settings.provideBackendInfo,
        passwordMaxAgeDays: this.settings.passwordMaxAgeDays,
        now: this.clock.now(),
        // The session that recorded the user's first login keeps saying so.
        isFirstLogin:
          user.firstLoginAt !== null && user.firstLoginAt.getTime() === session.createdAt.getTime(),
        includePhoneNumber: false,
      }),
    };
  }
}
