import { auditEvent } from '../domain/audit/audit-event.js';
import { type CredentialExpiryStatus, credentialExpiry } from '../domain/profile/credential-expiry.js';
import { type Ids, idsFor } from '../domain/profile/ids.js';
import { buildProfile, type Profile } from '../domain/profile/profile.js';
import {
  isLastSeenDue,
  type SessionRecord,
  type SessionTimeout,
  sessionTimedOut,
} from '../domain/session/session.js';
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
    if (found.user.disabled) {
      // Disabling the account ended its sessions already (audited then); this one raced it.
      this.checks.sessionChecked('invalid');
      await this.store.sessions.deleteByTokenHash(tokenHash);
      throw notAuthenticated();
    }
    const timedOut = sessionTimedOut(found.session, this.settings, now);
    if (timedOut) {
      this.checks.sessionChecked('expired');
      await this.endTimedOut(found.user, tokenHash, timedOut, now);
      throw notAuthenticated();
    }
    if (isLastSeenDue(found.session, now)) await this.store.sessions.touch(tokenHash, now);
    const credentials = credentialExpiry(found.user, this.settings.passwordMaxAgeDays, now);
    this.checks.sessionChecked(credentials.isExpired ? 'password_expired' : 'ok');
    return { session: found.session, user: found.user, tokenHash, credentials };
  }

  /**
   * A session presented after its time-out ends here, with its audit record in the same
   * transaction (one only, should two requests race: the delete finds the row once). Sessions
   * never presented again are reclaimed silently by the purge.
   */
  private async endTimedOut(user: User, tokenHash: string, reason: SessionTimeout, now: Date): Promise<void> {
    await this.store.transaction(async (repositories) => {
      const ended = await repositories.sessions.deleteByTokenHash(tokenHash);
      if (!ended) return;
      await repositories.audit.record(
        auditEvent({
          occurredAt: now,
          event: 'session_expired',
          reason,
          actor: 'system',
          userId: user.userId,
          username: user.username,
          sessionHandle: ended.handle,
          sessionCount: 1,
          method: ended.method,
        }),
      );
    });
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
