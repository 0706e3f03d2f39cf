import { LoginThrottle, type ThrottleTicket } from '../../domain/login/login-throttle.js';
import { mfaInvalid, mfaNotConfigured } from '../../domain/mfa/mfa-errors.js';
import { isConfirmed, isEnrolmentOpen, mfaMethodsOf, type UserFactors } from '../../domain/mfa/mfa-factor.js';
import type { RecoveryCodeHasher } from '../../domain/mfa/recovery-code-hasher.port.js';
import { issueRecoveryCodes } from '../../domain/mfa/recovery-code-issuance.js';
import type { TotpAuthenticator } from '../../domain/mfa/totp-authenticator.port.js';
import { openTotpSecret } from '../../domain/mfa/totp-secret-sealing.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { isDomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';
import type { Store } from '../../domain/store.port.js';
import type { LoginEvents } from '../login-events.js';
import type { ClientInfo, LoginResult } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { SessionEnder, SessionEnding } from '../session-ending.js';
import { assertFactorsApplicable } from './factor-change-authorisation.js';
import { recordFactorChange } from './factor-changed.js';
import type { MfaLoginCompletion } from './mfa-login-completion.js';

/** What confirming answers: recovery codes with a first factor; a login on an enrolment-stage session. */
export interface TotpEnrolmentConfirmed {
  /** The ten new codes, shown this once; absent when the user had a factor already. */
  recoveryCodes?: string[];
  /** Set when the confirmation finished a login that required enrolment (a new session). */
  login?: LoginResult;
}

/**
 * `POST /api/v1/mfa/totp/confirm/` (contract 3b): a code of the pending factor, within 5 minutes
 * of its start, makes it active. No password (the start asked for it, in this session), but a
 * wrong code spends a place of the account's login throttle, as a wrong password does. On the
 * user's first factor, ten recovery codes are made with it. On a session of stage `enrolment`
 * (a login that required a factor), the confirmation finishes that login: `MfaLoginCompletion`.
 * The confirmation, the codes, the audit record and the end of the other sessions are one unit.
 */
export class ConfirmTotpEnrolment {
  constructor(
    private readonly store: Store,
    private readonly ending: SessionEnding,
    private readonly completion: MfaLoginCompletion,
    private readonly throttle: LoginThrottle,
    private readonly totp: TotpAuthenticator,
    private readonly sealer: TokenSealer | null,
    private readonly codeHasher: RecoveryCodeHasher,
    private readonly random: Random,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
  ) {}

  async execute(
    current: AuthenticatedSession,
    input: { totp: string; client: ClientInfo },
  ): Promise<TotpEnrolmentConfirmed> {
    assertFactorsApplicable(current);
    // A service without its key cannot open the secret: said before any budget is spent.
    if (!this.sealer) throw mfaNotConfigured('TOKEN_ENCRYPTION_KEY');
    const { user } = current;
    let ticket: ThrottleTicket;
    try {
      ticket = await this.throttle.reserve(
        LoginThrottle.keys(user.username, input.client.clientAddress),
        this.clock.now(),
      );
    } catch (error) {
      if (isDomainError(error) && error.code === 'TOO_MANY_ATTEMPTS') {
        this.events.mfaChecked?.({ method: 'totp', outcome: 'throttled', userId: user.userId });
      }
      throw error;
    }
    const factors = await this.store.mfa.factorsOf(user.userId);
    const step = this.matchingStep(factors, input.totp);
    if (step === null || !factors.totp) {
      this.throttle.failed(ticket);
      this.events.mfaChecked?.({ method: 'totp', outcome: 'invalid', userId: user.userId });
      throw mfaInvalid();
    }
    const factorId = factors.totp.factorId;
    // The first factor brings the recovery codes; hashed before the unit opens.
    const issued =
      mfaMethodsOf(factors).length === 0
        ? await issueRecoveryCodes(this.random, this.codeHasher, user.userId)
        : null;
    const recoveryCodes = issued?.codes ?? null;
    const codeHashes = issued?.hashes ?? null;

    const inUnit = async (end: SessionEnder, keepTokenHash: string) => {
      const now = this.clock.now();
      // Started again, removed or confirmed since it was read: nothing is written.
      if (!(await end.repositories.mfa.confirmTotp(user.userId, factorId, step, now))) throw mfaInvalid();
      if (codeHashes) await end.repositories.mfa.replaceRecoveryCodes(user.userId, codeHashes, now);
      await this.throttle.succeeded(ticket, end.repositories.throttle);
      await recordFactorChange(end, {
        event: 'mfa_enrolled',
        method: 'totp',
        user,
        keepTokenHash,
        sessionMethod: current.session.method,
        sessionHandle: current.session.handle,
        client: input.client,
        now,
      });
    };

    if (current.auth.stage === 'enrolment') {
      // The completion replaces the pending session after this runs: excepted here, it is still
      // there to be replaced by the new full session.
      const login = await this.completion.complete(current, 'totp', input.client, (_, end) =>
        inUnit(end, current.tokenHash),
      );
      return { login, ...(recoveryCodes ? { recoveryCodes } : {}) };
    }
    await this.ending.unit((_, end) => inUnit(end, current.tokenHash));
    this.events.mfaChecked?.({ method: 'totp', outcome: 'success', userId: user.userId });
    return recoveryCodes ? { recoveryCodes } : {};
  }

  /** The step of a right code of the user's pending, still open enrolment; null otherwise. */
  private matchingStep(factors: UserFactors, code: string): number | null {
    const { totp } = factors;
    if (!totp || isConfirmed(totp) || !isEnrolmentOpen(totp, this.clock.now())) return null;
    const secret = openTotpSecret(this.sealer, totp.sealedSecret, {
      userId: totp.userId,
      factorId: totp.factorId,
    });
    if (secret === null) return null;
    return this.totp.matchingStep(secret, code);
  }
}
