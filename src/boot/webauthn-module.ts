import { ContainerModule } from 'inversify';
import { webAuthnRoutes } from '../adapters/http/routes/webauthn-routes.js';
import type { LoginEvents } from '../application/login-events.js';
import type { FactorChangeAuthorisation } from '../application/mfa/factor-change-authorisation.js';
import type { MfaLoginCompletion } from '../application/mfa/mfa-login-completion.js';
import { PasskeyLogin } from '../application/mfa/passkey-login.js';
import { WebAuthnCredentialRemoval } from '../application/mfa/webauthn-credential-removal.js';
import { WebAuthnRegistration } from '../application/mfa/webauthn-registration.js';
import { WebAuthnSecondFactor } from '../application/mfa/webauthn-second-factor.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { SessionIssuer } from '../application/session-issuer.js';
import type { LoginThrottle } from '../domain/login/login-throttle.js';
import type { RecoveryCodeHasher } from '../domain/mfa/recovery-code-hasher.port.js';
import type { WebAuthnVerifier } from '../domain/mfa/webauthn-verifier.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/**
 * WebAuthn wired (contract 3b): adding and removing credentials, passkey login, a key as the
 * second factor, and their routes. Every use case takes the verifier as mfa-module.ts binds it:
 * null without a relying party, which each answers with 409 MFA_NOT_CONFIGURED. Adding or removing a
 * credential takes the password check every factor change takes (mfa-enrolment-module.ts).
 */
export const webAuthnModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.WebAuthnRegistration)
    .toResolvedValue(
      (
        store: Store,
        clock: Clock,
        authorisation: FactorChangeAuthorisation,
        verifier: WebAuthnVerifier | null,
        random: Random,
        ending: SessionEnding,
        recoveryCodeHasher: RecoveryCodeHasher,
        completion: MfaLoginCompletion,
      ) =>
        new WebAuthnRegistration({
          store,
          clock,
          authorisation,
          verifier,
          random,
          ending,
          recoveryCodeHasher,
          completion,
        }),
      [
        TOKENS.Store,
        TOKENS.Clock,
        TOKENS.FactorChangeAuthorisation,
        TOKENS.WebAuthnVerifier,
        TOKENS.Random,
        TOKENS.SessionEnding,
        TOKENS.RecoveryCodeHasher,
        TOKENS.MfaLoginCompletion,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.WebAuthnCredentialRemoval)
    .toResolvedValue(
      (authorisation: FactorChangeAuthorisation, ending: SessionEnding, clock: Clock) =>
        new WebAuthnCredentialRemoval({ authorisation, ending, clock }),
      [TOKENS.FactorChangeAuthorisation, TOKENS.SessionEnding, TOKENS.Clock],
    )
    .inSingletonScope();
  bind(TOKENS.PasskeyLogin)
    .toResolvedValue(
      (
        store: Store,
        verifier: WebAuthnVerifier | null,
        throttle: LoginThrottle,
        issuer: SessionIssuer,
        ending: SessionEnding,
        clock: Clock,
        random: Random,
        events: LoginEvents,
      ) => new PasskeyLogin({ store, verifier, throttle, issuer, ending, clock, random, events }),
      [
        TOKENS.Store,
        TOKENS.WebAuthnVerifier,
        TOKENS.LoginThrottle,
        TOKENS.SessionIssuer,
        TOKENS.SessionEnding,
        TOKENS.Clock,
        TOKENS.Random,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.WebAuthnSecondFactor)
    .toResolvedValue(
      (
        store: Store,
        verifier: WebAuthnVerifier | null,
        throttle: LoginThrottle,
        completion: MfaLoginCompletion,
        clock: Clock,
        random: Random,
        events: LoginEvents,
      ) => new WebAuthnSecondFactor({ store, verifier, throttle, completion, clock, random, events }),
      [
        TOKENS.Store,
        TOKENS.WebAuthnVerifier,
        TOKENS.LoginThrottle,
        TOKENS.MfaLoginCompletion,
        TOKENS.Clock,
        TOKENS.Random,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.WebAuthnRoutes)
    .toResolvedValue(
      (
        config: Config,
        registration: WebAuthnRegistration,
        removal: WebAuthnCredentialRemoval,
        passkeyLogin: PasskeyLogin,
        secondFactor: WebAuthnSecondFactor,
      ) => webAuthnRoutes({ registration, removal, passkeyLogin, secondFactor, cookie: config.cookie }),
      [
        TOKENS.Config,
        TOKENS.WebAuthnRegistration,
        TOKENS.WebAuthnCredentialRemoval,
        TOKENS.PasskeyLogin,
        TOKENS.WebAuthnSecondFactor,
      ],
    )
    .inSingletonScope();
});
