import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { webAuthnRoutes } from '../adapters/http/routes/webauthn-routes.js';
import type { LoginEvents } from '../application/login-events.js';
import {
  FactorChangeAuthorisation,
  WEBAUTHN_FACTOR_CHANGE_PASSWORD_MISMATCH,
} from '../application/mfa/factor-change-authorisation.js';
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
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/**
 * The password check before a credential is added or removed: the one every factor change takes
 * (mfa-enrolment-module.ts binds the TOTP one), with what WebAuthn's factor changes have always
 * done. A wrong password is recorded as a login's (`bad_password`), and the account's budget is the
 * plain login throttle, whose refusals are not reported as a login's.
 */
const WEBAUTHN_FACTOR_CHANGE_AUTHORISATION = Symbol.for(
  'gatehouse.WebAuthnFactorChangeAuthorisation',
) as ServiceIdentifier<FactorChangeAuthorisation>;

/**
 * WebAuthn wired (contract 3b): adding and removing credentials, passkey login, a key as the
 * second factor, and their routes. Every use case takes the verifier as mfa-module.ts binds it:
 * null without a relying party, which each answers with 409 MFA_NOT_CONFIGURED.
 */
export const webAuthnModule = new ContainerModule(({ bind }) => {
  bind(WEBAUTHN_FACTOR_CHANGE_AUTHORISATION)
    .toResolvedValue(
      (store: Store, hasher: PasswordHasher, throttle: LoginThrottle, clock: Clock, events: LoginEvents) =>
        new FactorChangeAuthorisation(
          store,
          hasher,
          throttle,
          clock,
          events,
          WEBAUTHN_FACTOR_CHANGE_PASSWORD_MISMATCH,
        ),
      [TOKENS.Store, TOKENS.PasswordHasher, TOKENS.LoginThrottle, TOKENS.Clock, TOKENS.LoginEvents],
    )
    .inSingletonScope();
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
        WEBAUTHN_FACTOR_CHANGE_AUTHORISATION,
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
      [WEBAUTHN_FACTOR_CHANGE_AUTHORISATION, TOKENS.SessionEnding, TOKENS.Clock],
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
