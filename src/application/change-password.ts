import { auditAccount, auditEvent } from '../domain/audit/audit-event.js';
import { LoginThrottle } from '../domain/login/login-throttle.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import { hashPassword, normalizePassword, verifyPassword } from '../domain/password/password-text.js';
import { hashSessionToken } from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import { recordRefusedAttempt } from './refused-attempt.js';
import type { AuthenticatedSession } from './session-authenticator.js';
import type { SessionEnding } from './session-ending.js';
import type { SessionIssuer } from './session-issuer.js';

function currentPasswordMismatch(): DomainError {
  return new DomainError('CURRENT_PASSWORD_MISMATCH', 'The current password is incorrect.');
}

/**
 * `POST /api/v1/password/`: allowed on an expired session. Needs the current password (ASVS
 * 6.2.3); on success the expiry is cleared, every session of the user ends and this one is
 * replaced by a new id (CS: rotate on credential change), all in one transaction.
 */
export class ChangePassword {
  constructor(
    private readonly store: Store,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly throttle: LoginThrottle,
    private readonly issuer: SessionIssuer,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
    private readonly ending: SessionEnding,
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { oldPassword: string; newPassword: string; client: ClientInfo },
  ): Promise<LoginResult> {
    const { user } = current;
    const keys = LoginThrottle.keys(user.username, input.client.clientAddress);
    // Reserved before the current password is verified, as for a login.
    const ticket = await this.throttle.reserve(keys, this.clock.now());

    const { verified } = await verifyPassword(this.hasher, user.passwordHash, input.oldPassword);
    const audited = {
      actor: 'user',
      method: current.session.method,
      clientAddress: input.client.clientAddress,
      sessionHandle: current.session.handle,
      ...auditAccount(user),
    } as const;
    if (!verified) {
      const now = this.clock.now();
      // The attempt's places stay spent.
      const { blocked } = this.throttle.failed(ticket);
      await recordRefusedAttempt(
        this.store,
        audited,
        { occurredAt: now, event: 'password_change', reason: 'current_password_mismatch' },
        blocked,
      );
      this.events.loginFailed({
        method: 'password',
        reason: 'current_password_mismatch',
        userId: user.userId,
      });
      throw currentPasswordMismatch();
    }
    try {
      this.policy.assertAcceptable(normalizePassword(input.newPassword), {
        username: user.username,
        otherWords: [user.firstName, user.lastName, user.emailAddress],
      });
      if (normalizePassword(input.newPassword) === normalizePassword(input.oldPassword)) {
        throw new DomainError('PASSWORD_POLICY', 'The new password does not meet the password policy.', {
          errors: [{ path: 'new_password', message: 'must differ from the current password' }],
        });
      }
    } catch (error) {
      // The current password was right: a refused new one is no guess, so it spends no budget.
      await this.throttle.succeeded(ticket);
      throw error;
    }
    const hash = await hashPassword(this.hasher, input.newPassword);
    const issued = await this.ending.unit(async (repositories, end) => {
      const now = this.clock.now();
      await this.throttle.succeeded(ticket, repositories.throttle);
      // Compare-and-set on the password this caller verified: of two changes racing with the same
      // current password exactly one wins; the other changes nothing.
      const changed = await repositories.users.setPassword(user.userId, hash, {
        mustChange: false,
        now,
        unlessChangedSince: { hash: user.passwordHash!, changedAt: user.passwordChangedAt },
      });
      if (!changed) throw currentPasswordMismatch();
      // This session is replaced by a new id (rotated; the password_change record names the new
      // one). If it is gone, it was revoked while the hash was computed (or ended by a concurrent
      // change): no new cookie for it.
      const replaced = await end.one(current.tokenHash, { reason: 'password_changed', audited: false });
      if (!replaced) throw new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
      const updated = await repositories.users.findByUserId(user.userId);
      if (!updated) throw new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
      const rotated = await this.issuer.issue(end, {
        user: updated,
        method: current.session.method,
        presentedTokens: [],
        client: input.client,
        // The provider tokens move to the new session (read here, as the old one ends).
        ...(replaced.sso ? { sso: replaced.sso } : {}),
        countAsLogin: false,
        expiresAt: current.session.expiresAt,
        // A rotation changes the id, never what the session proved nor when (step-up holds as before).
        auth: { stage: 'full', amr: current.auth.amr, authTime: current.auth.authTime },
      });
      await repositories.audit.record(
        auditEvent({
          ...audited,
          occurredAt: now,
          event: 'password_change',
          sessionHandle: rotated.sessionHandle,
        }),
      );
      // The other sessions end (revoked), all but the new one.
      await end.ofUser(
        user,
        {
          reason: 'password_changed',
          method: current.session.method,
          clientAddress: input.client.clientAddress,
        },
        { except: hashSessionToken(rotated.token) },
      );
      return rotated;
    });
    this.events.passwordChanged({ userId: user.userId });
    return issued;
  }
}
