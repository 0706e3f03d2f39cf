import { ContainerModule } from 'inversify';
import { mfaLoginRoutes } from '../adapters/http/routes/mfa-login-routes.js';
import type { LoginEvents } from '../application/login-events.js';
import type { MfaLoginCompletion } from '../application/mfa/mfa-login-completion.js';
import {
  SecondFactorVerification,
  type WebAuthnSecondFactor,
} from '../application/mfa/second-factor-verification.js';
import type { DeviceProofs } from '../domain/login/device-proofs.port.js';
import type { LoginThrottle } from '../domain/login/login-throttle.js';
import type { RecoveryCodeHasher } from '../domain/mfa/recovery-code-hasher.port.js';
import type { TotpAuthenticator } from '../domain/mfa/totp-authenticator.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/**
 * The second step of a password login (contract 3b): `POST /api/v1/mfa/verify/`. Its WebAuthn
 * branch is `TOKENS.WebAuthnSecondFactor` (webauthn-module.ts).
 */
export const mfaLoginModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.SecondFactorVerification)
    .toResolvedValue(
      (
        store: Store,
        throttle: LoginThrottle,
        totp: TotpAuthenticator,
        sealer: TokenSealer | null,
        hasher: RecoveryCodeHasher,
        completion: MfaLoginCompletion,
        devices: DeviceProofs,
        clock: Clock,
        events: LoginEvents,
        webauthn: WebAuthnSecondFactor | null,
      ) =>
        // The logins' throttle and settings: a second factor is throttled as a password is
        // (contract 3b), with keys of its own. Its refusals are counted by the use case, which
        // knows the method (gatehouse_mfa_total{outcome="throttled"}).
        new SecondFactorVerification(
          store,
          throttle,
          totp,
          sealer,
          hasher,
          completion,
          devices,
          clock,
          events,
          webauthn,
        ),
      [
        TOKENS.Store,
        TOKENS.LoginThrottle,
        TOKENS.TotpAuthenticator,
        TOKENS.TotpSecretSealer,
        TOKENS.RecoveryCodeHasher,
        TOKENS.MfaLoginCompletion,
        TOKENS.DeviceProofs,
        TOKENS.Clock,
        TOKENS.LoginEvents,
        TOKENS.WebAuthnSecondFactor,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.MfaLoginRoutes)
    .toResolvedValue(
      (verification: SecondFactorVerification, config: Config) =>
        mfaLoginRoutes({ verification, cookie: config.cookie }),
      [TOKENS.SecondFactorVerification, TOKENS.Config],
    )
    .inSingletonScope();
});
