import { auditAccount, auditEvent } from '../../domain/audit/audit-event.js';
import type { DeviceProofs } from '../../domain/login/device-proofs.port.js';
import { LoginThrottle, type ThrottleTicket } from '../../domain/login/login-throttle.js';
import { mfaInvalid } from '../../domain/mfa/mfa-errors.js';
import { isConfirmed, type MfaMethod, mfaMethodsOf } from '../../domain/mfa/mfa-factor.js';
import type { RecoveryCodeHasher } from '../../domain/mfa/recovery-code-hasher.port.js';
import { normaliseRecoveryCode } from '../../domain/mfa/recovery-codes.js';
import type { TotpAuthenticator } from '../../domain/mfa/totp-authenticator.port.js';
import { openTotpSecret } from '../../domain/mfa/totp-secret-sealing.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';
import type { EndingRepositories, Store } from '../../domain/store.port.js';
import { canonicalUsername } from '../../domain/user/username.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo } from '../login-result.js';
import type { PasswordLoginResult } from '../password-login.js';
import { recordRefusedAttempt } from '../refused-attempt.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { MfaLoginCompletion } from './mfa-login-completion.js';

/** What the second step of a login presents: exactly one factor (contract 3b). */
export type SecondFactorProof =
  | { method: 'totp'; code: string }
  | { method: 'recovery_code'; code: string }
  | { method: 'webauthn'; response: Record<string, unknown> };

/**
 * The WebAuthn branch of the second step, built apart (its challenge is bound to the pending
 * session by `POST /api/v1/mfa/webauthn/options/`). It checks the assertion and answers the write
 * that accepts it (the signature counter's update), run in the unit that issues the session, which
 * throws MFA_INVALID when it no longer holds; or null when the assertion is not valid for the user.
 */
export interface WebAuthnSecondFactor {
  check(
    pending: AuthenticatedSession,
    response: Record<string, unknown>,
  ): Promise<((repositories: EndingRepositories) => Promise<void>) | null>;
}

/** The 6 digits, as apps show them (`123 456` too); anything else cannot be a code. */
const TOTP_CODE = /^\d{6}$/;

/**
 * `POST /api/v1/mfa/verify/`: the second step of a password login. The attempt takes its place in
 * the account's second-factor budget before any code is checked (`LoginThrottle.secondFactorKeys`);
 * a right factor is accepted once (the TOTP step, the recovery code) in the same unit of work that
 * ends the pending session and issues the full one (`MfaLoginCompletion`), so on a transactional
 * store an outage in between spends nothing and leaves the pending session as it was.
 */
export class SecondFactorVerification {
  constructor(
    private readonly store: Store,
    private readonly throttle: LoginThrottle,
    private readonly totp: TotpAuthenticator,
    private readonly totpSealer: TokenSealer | null,
    private readonly recoveryCodes: RecoveryCodeHasher,
    private readonly completion: MfaLoginCompletion,
    private readonly devices: DeviceProofs,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
    /** Null until WebAuthn's branch is wired: a `webauthn` proof is then 400 INVALID_REQUEST. */
    private readonly webauthn: WebAuthnSecondFactor | null = null,
  ) {}

  async execute(
    pending: AuthenticatedSession,
    proof: SecondFactorProof,
    client: ClientInfo,
  ): Promise<PasswordLoginResult> {
    const { user } = pending;
    const { method } = proof;
    if (method === 'webauthn' && !this.webauthn) {
      throw new DomainError('INVALID_REQUEST', 'WebAuthn is not available for this step yet.');
    }
    let ticket: ThrottleTicket;
    try {
      ticket = await this.throttle.reserve(
        LoginThrottle.secondFactorKeys(user.userId, client.clientAddress),
        this.clock.now(),
      );
    } catch (error) {
      if (isDomainError(error) && error.code === 'TOO_MANY_ATTEMPTS') {
        this.events.mfaChecked?.({ method, outcome: 'throttled', userId: user.userId });
      }
      throw error;
    }
    const accept = await this.acceptance(pending, proof);
    if (!accept) return this.refuse(pending, method, ticket, client);
    // Made before the session commits, as at a one-step login: a store failure while reading the
    // signing key must not leave a session. The proof is the whole login's: issued at its end.
    const device = await this.devices.issue(canonicalUsername(user.username), this.clock.now());
    try {
      const result = await this.completion.complete(pending, method, client, async (repositories) => {
        await accept(repositories);
        await this.throttle.succeeded(ticket, repositories.throttle);
      });
      return { kind: 'full', ...result, device };
    } catch (error) {
      // The factor was right a moment ago but is spent now (a replay racing its original).
      if (isDomainError(error) && error.code === 'MFA_INVALID')
        return this.refuse(pending, method, ticket, client);
      throw error;
    }
  }

  /**
   * The write that accepts this proof, to run in the login's unit of work (it throws MFA_INVALID
   * there when another request spent the factor first), or null when the proof is wrong.
   */
  private async acceptance(
    pending: AuthenticatedSession,
    proof: SecondFactorProof,
  ): Promise<((repositories: EndingRepositories) => Promise<void>) | null> {
    const { userId } = pending.user;
    if (proof.method === 'webauthn') return this.webauthn!.check(pending, proof.response);
    const factors = await this.store.mfa.factorsOf(userId);
    if (!mfaMethodsOf(factors).includes(proof.method)) return null;
    if (proof.method === 'totp') {
      const code = proof.code.replace(/\s/g, '');
      if (!TOTP_CODE.test(code) || !isConfirmed(factors.totp)) return null;
      const { factorId, sealedSecret, lastAcceptedStep } = factors.totp;
      const secret = openTotpSecret(this.totpSealer, sealedSecret, { userId, factorId });
      const step = secret ? this.totp.matchingStep(secret, code) : null;
      // A replay is refused here already, before the unit that ends the pending session: where
      // sessions live outside the database (SESSION_STORE=redis, memory) an ended session stays
      // ended when the unit fails, and a replay must not cost the user the login under way. The
      // write in the unit stays the one that decides (two requests racing with one code).
      if (step === null || (lastAcceptedStep !== null && step <= lastAcceptedStep)) return null;
      return async (repositories) => {
        if (!(await repositories.mfa.acceptTotpStep(userId, factorId, step))) throw mfaInvalid();
      };
    }
    const code = normaliseRecoveryCode(proof.code);
    if (!code) return null;
    const codeHash = await this.recoveryCodes.hash(userId, code);
    return async (repositories) => {
      if (!(await repositories.mfa.consumeRecoveryCode(userId, codeHash))) throw mfaInvalid();
      await repositories.audit.record(
        auditEvent({
          ...auditAccount(pending.user),
          occurredAt: this.clock.now(),
          event: 'recovery_code_used',
          actor: 'user',
          method: 'password',
          reason: 'recovery_code',
        }),
      );
    };
  }

  /** A wrong factor: its place stays spent, the refusal is audited and counted. */
  private async refuse(
    pending: AuthenticatedSession,
    method: MfaMethod,
    ticket: ThrottleTicket,
    client: ClientInfo,
  ): Promise<never> {
    const { blocked } = this.throttle.failed(ticket);
    await recordRefusedAttempt(
      this.store,
      {
        ...auditAccount(pending.user),
        actor: 'user',
        method: 'password',
        clientAddress: client.clientAddress,
      },
      { occurredAt: this.clock.now(), event: 'mfa_verified', reason: method },
      blocked,
    );
    this.events.mfaChecked?.({ method, outcome: 'invalid', userId: pending.user.userId });
    throw mfaInvalid();
  }
}
