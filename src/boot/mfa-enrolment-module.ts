import type { ServiceIdentifier } from 'inversify';
import { ContainerModule } from 'inversify';
import type { Route } from '../adapters/http/route.js';
import { mfaEnrolmentRoutes } from '../adapters/http/routes/mfa-enrolment-routes.js';
import type { LoginEvents } from '../application/login-events.js';
import { ConfirmTotpEnrolment } from '../application/mfa/confirm-totp-enrolment.js';
import { FactorChangeAuthorisation } from '../application/mfa/factor-change-authorisation.js';
import type { MfaLoginCompletion } from '../application/mfa/mfa-login-completion.js';
import { MfaOverview } from '../application/mfa/mfa-overview.js';
import { RegenerateRecoveryCodes } from '../application/mfa/regenerate-recovery-codes.js';
import { RemoveTotp } from '../application/mfa/remove-totp.js';
import { StartTotpEnrolment } from '../application/mfa/start-totp-enrolment.js';
import { ReportingLoginThrottle } from '../application/reporting-login-throttle.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { LoginThrottle } from '../domain/login/login-throttle.js';
import type { RecoveryCodeHasher } from '../domain/mfa/recovery-code-hasher.port.js';
import type { TotpAuthenticator } from '../domain/mfa/totp-authenticator.port.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/**
 * Tokens only this module binds and takes (its own, beside TOKENS, so that modules merge without
 * conflict). It binds TOKENS.FactorChangeAuthorisation too, which lives in TOKENS because
 * webauthn-module.ts takes it as well.
 */
export const MFA_ENROLMENT_TOKENS = {
  /** A login-throttle whose refusals are reported as those of a login (the factor routes' budget is the account's). */
  FactorThrottle: Symbol.for('gatehouse.FactorThrottle') as ServiceIdentifier<LoginThrottle>,
  /** The enrolment routes, for the route table (http-module.ts). */
  Routes: Symbol.for('gatehouse.MfaEnrolmentRoutes') as ServiceIdentifier<Route[]>,
};

/** Contract 3b, enrolment: TOTP, recovery codes, `GET /api/v1/mfa/`. */
export const mfaEnrolmentModule = new ContainerModule(({ bind }) => {
  bind(MFA_ENROLMENT_TOKENS.FactorThrottle)
    .toResolvedValue(
      (store: Store, config: Config, events: LoginEvents) =>
        new ReportingLoginThrottle(store.throttle, config.throttle, () =>
          events.loginThrottled?.({ method: 'password', operation: 'login' }),
        ),
      [TOKENS.Store, TOKENS.Config, TOKENS.LoginEvents],
    )
    .inSingletonScope();
  bind(TOKENS.FactorChangeAuthorisation)
    .toResolvedValue(
      (store: Store, hasher: PasswordHasher, throttle: LoginThrottle, clock: Clock, events: LoginEvents) =>
        new FactorChangeAuthorisation(store, hasher, throttle, clock, events),
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        MFA_ENROLMENT_TOKENS.FactorThrottle,
        TOKENS.Clock,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
  bind(MFA_ENROLMENT_TOKENS.Routes)
    .toResolvedValue(
      (
        store: Store,
        config: Config,
        authorisation: FactorChangeAuthorisation,
        throttle: LoginThrottle,
        ending: SessionEnding,
        completion: MfaLoginCompletion,
        totp: TotpAuthenticator,
        sealer: TokenSealer | null,
        codeHasher: RecoveryCodeHasher,
        random: Random,
        clock: Clock,
        events: LoginEvents,
      ) =>
        mfaEnrolmentRoutes({
          startTotp: new StartTotpEnrolment(
            store,
            authorisation,
            totp,
            sealer,
            random,
            clock,
            config.mfa.webauthn.rpName,
          ),
          confirmTotp: new ConfirmTotpEnrolment(
            store,
            ending,
            completion,
            throttle,
            totp,
            sealer,
            codeHasher,
            random,
            clock,
            events,
          ),
          removeTotp: new RemoveTotp(ending, authorisation, clock),
          regenerateRecoveryCodes: new RegenerateRecoveryCodes(
            store,
            authorisation,
            codeHasher,
            random,
            clock,
          ),
          overview: new MfaOverview(store, config.mfa.requiredLevels),
          cookie: config.cookie,
        }),
      [
        TOKENS.Store,
        TOKENS.Config,
        TOKENS.FactorChangeAuthorisation,
        MFA_ENROLMENT_TOKENS.FactorThrottle,
        TOKENS.SessionEnding,
        TOKENS.MfaLoginCompletion,
        TOKENS.TotpAuthenticator,
        TOKENS.TotpSecretSealer,
        TOKENS.RecoveryCodeHasher,
        TOKENS.Random,
        TOKENS.Clock,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
});
