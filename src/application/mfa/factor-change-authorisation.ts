import { auditAccount } from '../../domain/audit/audit-event.js';
import { LoginThrottle } from '../../domain/login/login-throttle.js';
import { mfaNotApplicable } from '../../domain/mfa/mfa-errors.js';
import type { PasswordHasher } from '../../domain/password/password-hasher.port.js';
import { verifyPassword } from '../../domain/password/password-text.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Store } from '../../domain/store.port.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo } from '../login-result.js';
import { recordRefusedAttempt } from '../refused-attempt.js';
import type { AuthenticatedSession } from '../session-authenticator.js';

/** The reason a refused factor change's `login` failure record carries (every factor). */
export const FACTOR_CHANGE_PASSWORD_MISMATCH = 'factor_change_password_mismatch';

/**
 * Second factors belong to password users only: an SSO session's provider does its own second
 * factor (contract 3b: `403 MFA_NOT_APPLICABLE`), and a user without a password (made by SSO)
 * has no first factor of ours for a second one to stand beside.
 */
export function assertFactorsApplicable(current: AuthenticatedSession): void {
  if (current.session.method !== 'password' || !current.user.passwordHash) throw mfaNotApplicable();
}

/**
 * The step every call that starts or removes a second factor takes first (ASVS 5.0 7.5.1:
 * re-authenticate before changing an authentication factor): the session must be a password
 * user's, and the body's `password` must be the user's current one. A wrong password is answered
 * as a login's (`401 AUTHENTICATION_FAILED`) and spends a place of the account's login throttle
 * budget, as a failed login does, so a stolen session cannot be used to guess the password
 * faster than the login form allows. Shared by TOTP enrolment and removal, recovery codes, and
 * WebAuthn registration options and credential removal.
 */
export class FactorChangeAuthorisation {
  constructor(
    private readonly store: Store,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
  ) {}

  /** Resolves when the change may go on; throws MFA_NOT_APPLICABLE, TOO_MANY_ATTEMPTS or AUTHENTICATION_FAILED. */
  async authorise(current: AuthenticatedSession, password: string, client: ClientInfo): Promise<void> {
    assertFactorsApplicable(current);
    const { user } = current;
    const keys = LoginThrottle.keys(user.username, client.clientAddress);
    // Reserved before the password is verified, as for a login: a burst verifies no more guesses.
    const ticket = await this.throttle.reserve(keys, this.clock.now());
    const { verified } = await verifyPassword(this.hasher, user.passwordHash, password);
    if (!verified) {
      const { blocked } = this.throttle.failed(ticket);
      await recordRefusedAttempt(
        this.store,
        {
          actor: 'user',
          method: current.session.method,
          clientAddress: client.clientAddress,
          sessionHandle: current.session.handle,
          ...auditAccount(user),
        },
        { occurredAt: this.clock.now(), event: 'login', reason: FACTOR_CHANGE_PASSWORD_MISMATCH },
        blocked,
      );
      this.events.loginFailed({
        method: 'password',
        reason: FACTOR_CHANGE_PASSWORD_MISMATCH,
        userId: user.userId,
        blocked,
      });
      throw new DomainError('AUTHENTICATION_FAILED', 'The password is incorrect.');
    }
    // A right password forgives the account's failures, as a login does.
    await this.throttle.succeeded(ticket);
  }
}
