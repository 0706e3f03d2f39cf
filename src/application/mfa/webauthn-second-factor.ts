import type { LoginThrottle } from '../../domain/login/login-throttle.js';
import { mfaInvalid, mfaNotConfigured } from '../../domain/mfa/mfa-errors.js';
import { newWebAuthnChallenge, redeemWebAuthnChallenge } from '../../domain/mfa/webauthn-challenge.js';
import type { WebAuthnOptionsJson, WebAuthnVerifier } from '../../domain/mfa/webauthn-verifier.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { isDomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { EndingRepositories, Store } from '../../domain/store.port.js';
import type { LoginEvents } from '../login-events.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { MfaLoginCompletion } from './mfa-login-completion.js';

export interface WebAuthnSecondFactorDeps {
  store: Store;
  verifier: WebAuthnVerifier | null;
  throttle: LoginThrottle;
  completion: MfaLoginCompletion;
  clock: Clock;
  random: Random;
  events: LoginEvents;
}

/**
 * A security key or passkey as the second factor of a password login (contract 3b): options for
 * the pending session (its user's credentials allowed, the challenge bound to the session's token
 * hash), and the verification that `POST /api/v1/mfa/verify/ {"webauthn": ...}` dispatches to.
 * The caller admits only a pending session of stage `second_factor` (rule `pending-second-factor`).
 */
export class WebAuthnSecondFactor {
  constructor(private readonly deps: WebAuthnSecondFactorDeps) {}

  async options(pending: AuthenticatedSession): Promise<WebAuthnOptionsJson> {
    const verifier = this.configured();
    const { store, random, clock } = this.deps;
    const factors = await store.mfa.factorsOf(pending.user.userId);
    // No credential: nothing an authenticator could answer with.
    if (factors.webauthn.length === 0) throw mfaInvalid();
    const challenge = newWebAuthnChallenge(random, clock.now(), {
      ceremony: 'second_factor',
      boundTo: pending.tokenHash,
    });
    await store.mfa.saveWebAuthnChallenge(challenge);
    return verifier.authenticationOptions({
      ceremony: 'second_factor',
      challenge: challenge.value,
      credentials: factors.webauthn,
    });
  }

  /**
   * The WebAuthn branch of `POST /api/v1/mfa/verify/` (`SecondFactorVerification`, which throttles,
   * counts and finishes the login): checks the assertion against the challenge bound to this
   * pending session (taken: single use) and the user's own credential, and answers the write that
   * accepts it (the counter's advance, refused in the login's unit should a concurrent use have
   * advanced it first), or null when the assertion is not valid for this user.
   */
  async check(
    pending: AuthenticatedSession,
    response: Record<string, unknown>,
  ): Promise<((repositories: EndingRepositories) => Promise<void>) | null> {
    const verifier = this.configured();
    const { store, clock } = this.deps;
    const { user } = pending;
    let newSignCount: number;
    let credentialId: string;
    try {
      const taken = await store.mfa.takeWebAuthnChallenge('second_factor', pending.tokenHash);
      if (!taken) return null;
      const redeemed = redeemWebAuthnChallenge(
        taken,
        { ceremony: 'second_factor', boundTo: pending.tokenHash },
        clock.now(),
      );
      if (redeemed.outcome === 'refused') return null;
      const named = verifier.credentialIdOf(response);
      const credential = named ? await store.mfa.findWebAuthnCredential(named) : null;
      // Another user's credential proves nothing about this one.
      if (!credential || credential.userId !== user.userId) return null;
      credentialId = credential.credentialId;
      ({ newSignCount } = await verifier.verifyAuthentication({
        response,
        expectedChallenge: redeemed.expectedChallenge,
        credential,
        requireUserVerification: false,
      }));
    } catch (error) {
      if (isDomainError(error) && error.code === 'MFA_INVALID') return null;
      throw error;
    }
    return async (repositories) => {
      if (!(await repositories.mfa.recordWebAuthnUse(credentialId, newSignCount, clock.now()))) {
        throw mfaInvalid();
      }
    };
  }

  private configured(): WebAuthnVerifier {
    if (!this.deps.verifier) throw mfaNotConfigured('WEBAUTHN_RP_ID');
    return this.deps.verifier;
  }
}
