import { LoginPolicy } from '../domain/login/login-policy.js';
import { LoginThrottle } from '../domain/login/login-throttle.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import type { SessionIssuer } from './session-issuer.js';

export interface PasswordLoginInput {
  username: string;
  password: string;
  presentedToken: string | null;
  client: ClientInfo;
}

function authenticationFailed(): DomainError {
  // One body for unknown user, wrong password and disabled account (ASVS 6.3.8).
  return new DomainError('AUTHENTICATION_FAILED', 'The username or password is incorrect.');
}

/** `POST /api/v1/login/`. */
export class PasswordLogin {
  private readonly policy = LoginPolicy.forPasswordLogin();

  constructor(
    private readonly store: Store,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly issuer: SessionIssuer,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
  ) {}

  async execute(input: PasswordLoginInput): Promise<LoginResult> {
    const keys = LoginThrottle.keys(input.username, input.client.clientAddress);
    await this.throttle.assertAllowed(keys, this.clock.now());

    const user = await this.store.users.findByUsername(input.username);
    // Same work whatever the outcome: an unknown user (or one without a password) verifies a dummy hash.
    const passwordVerified = user?.passwordHash
      ? await this.hasher.verify(user.passwordHash, input.password)
      : await this.hasher.verifyDummy(input.password);

    const decision = this.policy.evaluate({ method: 'password', user, passwordVerified });
    if (!decision.allowed) {
      const { blocked } = await this.throttle.recordFailure(keys, this.clock.now());
      this.events.loginFailed({
        method: 'password',
        reason: decision.reason,
        userId: user?.userId ?? null,
        blocked,
      });
      throw authenticationFailed();
    }
    const account = user!;
    await this.throttle.recordSuccess(keys);

    if (account.passwordHash && this.hasher.needsRehash(account.passwordHash)) {
      const upgraded = await this.hasher.hash(input.password);
      // Compare-and-set: a concurrent password change wins over this upgrade.
      await this.store.users.upgradePasswordHash(account.userId, account.passwordHash, upgraded);
    }

    const result = await this.issuer.issue(this.store, {
      user: account,
      method: 'password',
      presentedToken: input.presentedToken,
      client: input.client,
    });
    this.events.loginSucceeded({ method: 'password', userId: account.userId });
    return result;
  }
}
