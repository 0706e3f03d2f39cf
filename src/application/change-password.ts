import { auditAccount, auditEvent } from '../domain/audit/audit-event.js';
import { LoginThrottle } from '../domain/login/login-throttle.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import type { AuthenticatedSession } from './session-authenticator.js';
import type { SessionIssuer } from './session-issuer.js';

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
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { oldPassword: string; newPassword: string; client: ClientInfo },
  ): Promise<LoginResult> {
    const { user } = current;
    const keys = LoginThrottle.keys(user.username, input.client.clientAddress);
    const standing = await this.throttle.assertAllowed(keys, this.clock.now());

    const verified = user.passwordHash
      ? await this.hasher.verify(user.passwordHash, input.oldPassword)
      : await this.hasher.verifyDummy(input.oldPassword);
    const audited = {
      actor: 'user',
      method: current.session.method,
      clientAddress: input.client.clientAddress,
      sessionHandle: current.session.handle,
      ...auditAccount(user),
    } as const;
    if (!verified) {
      const now = this.clock.now();
      // The failure count and its audit record commit together.
      await this.store.transaction(async (repositories) => {
        const { blocked } = await this.throttle.recordFailure(keys, now, repositories.throttle);
        await repositories.audit.record(
          auditEvent({
            ...audited,
            occurredAt: now,
            event: 'password_change',
            outcome: 'failure',
            reason: 'current_password_mismatch',
          }),
        );
        if (blocked) {
          await repositories.audit.record(
            auditEvent({
              ...audited,
              occurredAt: now,
              event: 'login_throttled',
              outcome: 'failure',
              reason: 'too_many_failures',
            }),
          );
        }
      });
      this.events.loginFailed({
        method: 'password',
        reason: 'current_password_mismatch',
        userId: user.userId,
      });
      throw new DomainError('CURRENT_PASSWORD_MISMATCH', 'The current password is incorrect.');
    }
    this.policy.assertAcceptable(input.newPassword, { username: user.username });
    if (input.newPassword === input.oldPassword) {
      throw new DomainError('PASSWORD_POLICY', 'The new password does not meet the password policy.', {
        errors: [{ path: 'new_password', message: 'must differ from the current password' }],
      });
    }
    const hash = await this.hasher.hash(input.newPassword);
    const result = await this.store.transaction(async (repositories) => {
      const now = this.clock.now();
      await this.throttle.recordSuccess(keys, repositories.throttle, standing);
      await repositories.users.setPassword(user.userId, hash, { mustChange: false, now });
      // The other sessions end (revoked); this one is replaced by a new id (rotated).
      const others = await repositories.sessions.deleteAllForUser(user.userId, current.tokenHash);
      const rotated = (await repositories.sessions.deleteByTokenHash(current.tokenHash)) ? 1 : 0;
      const ended = others + rotated;
      const updated = await repositories.users.findByUserId(user.userId);
      if (!updated) throw new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
      const issued = await this.issuer.issue(repositories, {
        user: updated,
        method: current.session.method,
        presentedToken: null,
        client: input.client,
        ...(current.session.sso ? { sso: current.session.sso } : {}),
        countAsLogin: false,
      });
      await repositories.audit.record(
        auditEvent({
          ...audited,
          occurredAt: now,
          event: 'password_change',
          sessionHandle: issued.sessionHandle,
        }),
      );
      if (others > 0) {
        await repositories.audit.record(
          auditEvent({
            ...audited,
            occurredAt: now,
            event: 'session_revoked',
            reason: 'password_change',
            sessionHandle: null,
            sessionCount: others,
          }),
        );
      }
      return { issued, ended };
    });
    this.events.passwordChanged({ userId: user.userId });
    this.events.sessionEnded({ userId: user.userId, why: 'password_changed', count: result.ended });
    return result.issued;
  }
}
