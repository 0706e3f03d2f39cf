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

export interface FactorChangePasswordDeps {
  store: Store;
  hasher: PasswordHasher;
  throttle: LoginThrottle;
  clock: Clock;
  events: LoginEvents;
}

/**
 * The password every change of a second factor asks for (contract 3b): someone who finds a session
 * open cannot add their own key or take the user's away. An SSO session is refused first (its
 * provider does its second factors; it has no password to give). A wrong password is
 * `401 AUTHENTICATION_FAILED` and counts as a failed login: the same throttle budgets, reserved
 * before the password is verified, and the same audit record.
 */
export async function confirmPasswordForFactorChange(
  deps: FactorChangePasswordDeps,
  current: AuthenticatedSession,
  password: string,
  client: ClientInfo,
): Promise<void> {
  const { user } = current;
  if (current.session.method === 'sso' || !user.passwordHash) throw mfaNotApplicable();
  const ticket = await deps.throttle.reserve(
    LoginThrottle.keys(user.username, client.clientAddress),
    deps.clock.now(),
  );
  const { verified } = await verifyPassword(deps.hasher, user.passwordHash, password);
  if (verified) {
    await deps.throttle.succeeded(ticket);
    return;
  }
  const { blocked } = deps.throttle.failed(ticket);
  await recordRefusedAttempt(
    deps.store,
    {
      actor: 'user',
      method: current.session.method,
      clientAddress: client.clientAddress,
      sessionHandle: current.session.handle,
      ...auditAccount(user),
    },
    { occurredAt: deps.clock.now(), event: 'login', reason: 'bad_password' },
    blocked,
  );
  deps.events.loginFailed({ method: 'password', reason: 'bad_password', userId: user.userId, blocked });
  throw new DomainError('AUTHENTICATION_FAILED', 'The password is incorrect.');
}
