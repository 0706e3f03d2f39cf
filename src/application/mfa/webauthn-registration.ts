import { mfaInvalid, mfaNotApplicable, mfaNotConfigured } from '../../domain/mfa/mfa-errors.js';
import { isConfirmed, type UserFactors } from '../../domain/mfa/mfa-factor.js';
import type { RecoveryCodeHasher } from '../../domain/mfa/recovery-code-hasher.port.js';
import { issueRecoveryCodes } from '../../domain/mfa/recovery-code-issuance.js';
import { newWebAuthnChallenge, redeemWebAuthnChallenge } from '../../domain/mfa/webauthn-challenge.js';
import type { WebAuthnOptionsJson, WebAuthnVerifier } from '../../domain/mfa/webauthn-verifier.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Random } from '../../domain/shared/random.port.js';
import type { Store } from '../../domain/store.port.js';
import type { ClientInfo, LoginResult } from '../login-result.js';
import type { AuthenticatedSession } from '../session-authenticator.js';
import type { SessionEnder, SessionEnding } from '../session-ending.js';
import type { FactorChangeAuthorisation } from './factor-change-authorisation.js';
import { recordFactorChange } from './factor-changed.js';
import type { MfaLoginCompletion } from './mfa-login-completion.js';

/** The label of a credential registered without one. */
export const DEFAULT_CREDENTIAL_NAME = 'Security key';

export interface RegisteredCredential {
  credentialId: string;
  name: string;
  createdAt: Date;
  /** Ten fresh codes when this is the user's first factor, shown once. */
  recoveryCodes: string[] | null;
  /** The login an enrolment-stage session became (a new session id), else null. */
  login: LoginResult | null;
}

export interface WebAuthnRegistrationDeps {
  store: Store;
  clock: Clock;
  /** The password the options call asks for. */
  authorisation: FactorChangeAuthorisation;
  /** Null when no relying party is configured: 409 MFA_NOT_CONFIGURED naming WEBAUTHN_RP_ID. */
  verifier: WebAuthnVerifier | null;
  random: Random;
  ending: SessionEnding;
  recoveryCodeHasher: RecoveryCodeHasher;
  completion: MfaLoginCompletion;
}

/**
 * Adding a passkey or security key (contract 3b): the options call checks the password and hands
 * out a challenge bound to this session (its token hash); the register call takes that challenge
 * out of the store, whatever the response then proves, so a response is never accepted twice.
 */
export class WebAuthnRegistration {
  constructor(private readonly deps: WebAuthnRegistrationDeps) {}

  async options(
    current: AuthenticatedSession,
    password: string,
    client: ClientInfo,
  ): Promise<WebAuthnOptionsJson> {
    const verifier = this.usableFor(current);
    await this.deps.authorisation.authorise(current, password, client);
    const { store, random, clock } = this.deps;
    const factors = await store.mfa.factorsOf(current.user.userId);
    const challenge = newWebAuthnChallenge(random, clock.now(), {
      ceremony: 'registration',
      boundTo: current.tokenHash,
    });
    await store.mfa.saveWebAuthnChallenge(challenge);
    return verifier.registrationOptions({
      user: { userId: current.user.userId, username: current.user.username },
      challenge: challenge.value,
      existing: factors.webauthn,
    });
  }

  async register(
    current: AuthenticatedSession,
    input: { response: unknown; name: string | undefined; client: ClientInfo },
  ): Promise<RegisteredCredential> {
    const verifier = this.usableFor(current);
    const { store, clock } = this.deps;
    const taken = await store.mfa.takeWebAuthnChallenge('registration', current.tokenHash);
    if (!taken) throw mfaInvalid();
    const redeemed = redeemWebAuthnChallenge(
      taken,
      { ceremony: 'registration', boundTo: current.tokenHash },
      clock.now(),
    );
    if (redeemed.outcome === 'refused') throw mfaInvalid();
    const verified = await verifier.verifyRegistration({
      response: input.response,
      expectedChallenge: redeemed.expectedChallenge,
    });
    const { user } = current;
    const createdAt = clock.now();
    const name = input.name ?? DEFAULT_CREDENTIAL_NAME;
    let recoveryCodes: string[] | null = null;

    // Everything the new credential changes, in the unit that adds it: the user's other sessions
    // end too, whether or not this registration finishes a login (adding a factor ends them).
    const addInUnit = async (end: SessionEnder) => {
      const { repositories } = end;
      const before = await repositories.mfa.factorsOf(user.userId);
      const added = await repositories.mfa.addWebAuthnCredential({
        credentialId: verified.credentialId,
        userId: user.userId,
        name,
        publicKey: verified.publicKey,
        signCount: verified.signCount,
        transports: verified.transports,
        createdAt,
        lastUsedAt: null,
      });
      if (added === 'exists') throw new DomainError('CONFLICT', 'This credential is registered already.');
      if (isFirstFactor(before)) {
        const issued = await issueRecoveryCodes(this.deps.random, this.deps.recoveryCodeHasher, user.userId);
        recoveryCodes = issued.codes;
        await repositories.mfa.replaceRecoveryCodes(user.userId, issued.hashes, createdAt);
      }
      await recordFactorChange(end, {
        event: 'mfa_enrolled',
        method: 'webauthn',
        user,
        keepTokenHash: current.tokenHash,
        sessionMethod: current.session.method,
        sessionHandle: current.session.handle,
        client: input.client,
        now: createdAt,
      });
    };

    if (current.auth.stage === 'enrolment') {
      // The factor a required enrolment asked for: the login is finished with a new session id.
      // The completion replaces the pending session after this runs: excepted here, it is still
      // there to be replaced by the new full session.
      const login = await this.deps.completion.complete(current, 'webauthn', input.client, (_, end) =>
        addInUnit(end),
      );
      return { credentialId: verified.credentialId, name, createdAt, recoveryCodes, login };
    }
    await this.deps.ending.unit((_, end) => addInUnit(end));
    return { credentialId: verified.credentialId, name, createdAt, recoveryCodes, login: null };
  }

  private usableFor(current: AuthenticatedSession): WebAuthnVerifier {
    if (!this.deps.verifier) throw mfaNotConfigured('WEBAUTHN_RP_ID');
    if (current.session.method === 'sso') throw mfaNotApplicable();
    return this.deps.verifier;
  }
}

/** Recovery codes come with the first factor: no confirmed TOTP and no credential yet. */
function isFirstFactor(factors: UserFactors): boolean {
  return !isConfirmed(factors.totp) && factors.webauthn.length === 0;
}
