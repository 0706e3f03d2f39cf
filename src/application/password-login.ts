import { auditAccount, auditEvent } from '../domain/audit/audit-event.js';
import type { DeviceProofs, IssuedDeviceProof } from '../domain/login/device-proofs.port.js';
import { LoginPolicy } from '../domain/login/login-policy.js';
import { LoginThrottle, type ThrottleTicket } from '../domain/login/login-throttle.js';
import { type SecondStep, secondStepOf } from '../domain/mfa/second-step.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import { hashPassword, verifyPassword } from '../domain/password/password-text.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { User, UserLevel } from '../domain/user/user.js';
import { canonicalUsername } from '../domain/user/username.js';
import type { LoginEvents } from './login-events.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import { recordRefusedAttempt } from './refused-attempt.js';
import type { SessionEnding } from './session-ending.js';
import type { SessionIssuer } from './session-issuer.js';

export interface PasswordLoginInput {
  username: string;
  password: string;
  /** The session cookie values the login was sent with: each session they name ends (fixation defence). */
  presentedTokens: readonly string[];
  /** The device proofs the browser sent (`DeviceProofs`): one for this user lets it past the account's block. */
  deviceProofs: readonly string[];
  client: ClientInfo;
}

/** A successful password login, plus the proof the browser keeps that it logged in as this user. */
export interface PasswordLoginResult extends LoginResult {
  kind: 'full';
  device: IssuedDeviceProof;
}

/**
 * A right password that is not a login yet (contract 3b): a pending session waits for the second
 * factor (or, for a user whose level requires one and who has none, for its enrolment). Its
 * answer says only what the second step needs; no device proof until the login is whole.
 */
export interface PendingPasswordLogin extends SecondStep {
  kind: 'pending';
  token: string;
  expiresAt: Date;
  lifetimeS: number;
  userId: string;
  sessionHandle: string;
  profile: {
    user_level: UserLevel;
    /** Whether the login, once finished, is the user's first (it is marked then, not now). */
    is_first_login: boolean;
    username: string;
  };
}

export type PasswordLoginOutcome = PasswordLoginResult | PendingPasswordLogin;

/** The second-factor policy of password logins (config.mfa). */
export interface SecondFactorSettings {
  /** Levels whose password users must have a factor (MFA_REQUIRED_LEVELS). */
  requiredLevels: readonly UserLevel[];
  /** Life of a pending session (MFA_PENDING_TTL_S). */
  pendingTtlS: number;
}

const NO_SECOND_FACTORS: SecondFactorSettings = { requiredLevels: [], pendingTtlS: 300 };

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
    private readonly devices: DeviceProofs,
    private readonly ending: SessionEnding,
    private readonly secondFactors: SecondFactorSettings = NO_SECOND_FACTORS,
  ) {}

  async execute(input: PasswordLoginInput): Promise<PasswordLoginOutcome> {
    const usernameKey = canonicalUsername(input.username);
    const deviceId = await this.recognisedDevice(input.deviceProofs, usernameKey);
    const keys = LoginThrottle.keys(input.username, input.client.clientAddress, deviceId);
    // The attempt takes its place in the throttle's budgets before the password is verified, so a
    // parallel burst verifies no more guesses than the budget. The reservation and the user lookup
    // go out together: one round trip of waiting, not two. A throttled attempt is refused whatever
    // the lookup found, so the refusal tells nothing.
    const [ticket, user] = await Promise.all([
      this.throttle.reserve(keys, this.clock.now()),
      this.store.users.findByUsername(input.username),
    ]);
    // The user's factors are read while argon2 runs: no round trip is added before the hash, nor
    // after it, for anyone. Read for every user with a password, so that the work does not depend
    // on whether the password is right; awaited only when it is (the catch keeps an outage on a
    // refused attempt from surfacing as an unhandled rejection: the refusal answers).
    const factorsRead = user?.passwordHash ? this.store.mfa.factorsOf(user.userId) : null;
    factorsRead?.catch(() => {});
    // Same work whatever the outcome: an unknown user (or one without a password) verifies a dummy hash.
    const { verified: passwordVerified, rehash } = await verifyPassword(
      this.hasher,
      user?.passwordHash,
      input.password,
    );

    const decision = this.policy.evaluate({ method: 'password', user, passwordVerified });
    const audited = {
      actor: 'user',
      method: 'password',
      clientAddress: input.client.clientAddress,
      // An unknown username is not recorded: it is what was typed, and may be a password.
      ...auditAccount(user),
    } as const;
    if (!decision.allowed) {
      const now = this.clock.now();
      // The attempt's places stay spent. Unknown user, wrong password and disabled account do the
      // same work here too (ASVS 6.3.8).
      const { blocked } = this.throttle.failed(ticket);
      await recordRefusedAttempt(
        this.store,
        audited,
        { occurredAt: now, event: 'login', reason: decision.reason },
        blocked,
      );
      this.events.loginFailed({
        method: 'password',
        reason: decision.reason,
        userId: user?.userId ?? null,
        blocked,
      });
      throw authenticationFailed();
    }
    const account = user!;
    // Hashed before the transaction opens: argon2id is slow on purpose.
    // A weaker or older hash, or one of the raw (not normalised) password, is replaced.
    const upgraded = account.passwordHash && rehash ? await hashPassword(this.hasher, input.password) : null;
    const secondStep = factorsRead
      ? secondStepOf(account.userLevel, await factorsRead, this.secondFactors.requiredLevels)
      : null;
    if (secondStep) return this.pending(account, ticket, upgraded, secondStep, input, audited);

    // A fresh proof on every success (a new device id, a full budget, a new lifetime), made before
    // the session commits: a store failure while reading the signing key must not leave a session.
    const device = await this.devices.issue(usernameKey, this.clock.now());

    // The throttle's forgiveness, the session and its audit record commit together.
    const result = await this.ending.unit(async (repositories, end) => {
      await this.throttle.succeeded(ticket, repositories.throttle);
      if (upgraded && account.passwordHash) {
        // Compare-and-set: a concurrent password change wins over this upgrade.
        await repositories.users.upgradePasswordHash(account.userId, account.passwordHash, upgraded);
      }
      const issued = await this.issuer.issue(end, {
        user: account,
        method: 'password',
        presentedTokens: input.presentedTokens,
        client: input.client,
      });
      // Last, after the session is written and after every write to the user's row (on SQL: no lock
      // upgrade, no deadlock). A password change committed since the verification ends this login
      // here (and its session is deleted); one not yet committed waits for this unit (a
      // transactional store), then ends this session with the others.
      const { userId, passwordHash, passwordChangedAt } = account;
      if (!(await repositories.users.passwordStillVerified(userId, passwordHash!, passwordChangedAt))) {
        throw authenticationFailed();
      }
      await repositories.audit.record(
        auditEvent({
          ...audited,
          occurredAt: this.clock.now(),
          event: 'login',
          sessionHandle: issued.sessionHandle,
        }),
      );
      return issued;
    });
    this.events.loginSucceeded({ method: 'password', userId: account.userId });
    return { kind: 'full', ...result, device };
  }

  /**
   * The first step of a two-step login: the password's budget is forgiven (it was right; the
   * second factor has a budget of its own, which only a right factor forgives), the hash upgraded,
   * and a pending session issued, short-lived and with a marked token. Not a login yet: no device
   * proof, no first-login mark, no `loginSucceeded`; the audit trail records `login` with the
   * stage as its reason.
   */
  private async pending(
    account: User,
    ticket: ThrottleTicket,
    upgraded: string | null,
    secondStep: SecondStep,
    input: PasswordLoginInput,
    audited: { actor: 'user'; method: 'password'; clientAddress: string | null },
  ): Promise<PendingPasswordLogin> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.secondFactors.pendingTtlS * 1000);
    const issued = await this.ending.unit(async (repositories, end) => {
      await this.throttle.succeeded(ticket, repositories.throttle);
      if (upgraded && account.passwordHash) {
        await repositories.users.upgradePasswordHash(account.userId, account.passwordHash, upgraded);
      }
      const result = await this.issuer.issue(end, {
        user: account,
        method: 'password',
        presentedTokens: input.presentedTokens,
        client: input.client,
        countAsLogin: false,
        expiresAt,
        auth: { stage: secondStep.stage, amr: ['pwd'] },
      });
      const { userId, passwordHash, passwordChangedAt } = account;
      if (!(await repositories.users.passwordStillVerified(userId, passwordHash!, passwordChangedAt))) {
        throw authenticationFailed();
      }
      await repositories.audit.record(
        auditEvent({
          ...audited,
          ...auditAccount(account),
          occurredAt: this.clock.now(),
          event: 'login',
          reason: secondStep.stage,
          sessionHandle: result.sessionHandle,
        }),
      );
      return result;
    });
    return {
      kind: 'pending',
      ...secondStep,
      token: issued.token,
      expiresAt: issued.expiresAt,
      lifetimeS: issued.lifetimeS,
      userId: account.userId,
      sessionHandle: issued.sessionHandle,
      profile: {
        user_level: account.userLevel,
        is_first_login: account.firstLoginAt === null,
        username: account.username,
      },
    };
  }

  private async recognisedDevice(proofs: readonly string[], usernameKey: string): Promise<string | null> {
    const now = this.clock.now();
    for (const proof of proofs) {
      const deviceId = await this.devices.recognise(proof, usernameKey, now);
      if (deviceId) return deviceId;
    }
    return null;
  }
}
