import { ContainerModule } from 'inversify';
import {
  HmacRecoveryCodeHasher,
  RECOVERY_CODE_KEY_BYTES,
} from '../adapters/crypto/hmac-recovery-code-hasher.js';
import { KeptSecret } from '../adapters/crypto/kept-secret.js';
import { OtpauthTotpAuthenticator } from '../adapters/totp/otpauth-totp-authenticator.js';
import { SimpleWebAuthnVerifier } from '../adapters/webauthn/simplewebauthn-verifier.js';
import type { LoginEvents } from '../application/login-events.js';
import { MfaLoginCompletion } from '../application/mfa/mfa-login-completion.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { SessionIssuer } from '../application/session-issuer.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { secretSealingFor } from './secret-sealing-for.js';
import { TOKENS } from './tokens.js';

/**
 * The parts of second factors (contract 3b): TOTP, recovery codes, WebAuthn. Two may be absent,
 * by configuration, and say so by being null (their use cases answer MFA_NOT_CONFIGURED):
 * - the TOTP sealer without TOKEN_ENCRYPTION_KEY: never a per-process key, as the provider
 *   tokens' fallback is, since a secret sealed with one would not open after a restart;
 * - the WebAuthn verifier without a relying party id or an origin (WEBAUTHN_RP_ID, TRUSTED_ORIGINS).
 */
export const mfaModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.TotpAuthenticator)
    .toResolvedValue(
      (clock: Clock, random: Random) => new OtpauthTotpAuthenticator(clock, random),
      [TOKENS.Clock, TOKENS.Random],
    )
    .inSingletonScope();
  bind(TOKENS.TotpSecretSealer)
    .toResolvedValue((config: Config) => secretSealingFor(config)?.opening ?? null, [TOKENS.Config])
    .inSingletonScope();
  // Shared by every instance through the store, as the device-proof key is: a code hashed on one
  // instance must match on another.
  bind(TOKENS.RecoveryCodeKey)
    .toResolvedValue(
      (store: Store, random: Random, config: Config) =>
        new KeptSecret(
          store.secrets,
          'recovery_code_key',
          { bytes: RECOVERY_CODE_KEY_BYTES, random },
          secretSealingFor(config),
        ),
      [TOKENS.Store, TOKENS.Random, TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.RecoveryCodeHasher)
    .toResolvedValue(
      (key: KeptSecret) => new HmacRecoveryCodeHasher(() => key.read()),
      [TOKENS.RecoveryCodeKey],
    )
    .inSingletonScope();
  bind(TOKENS.WebAuthnVerifier)
    .toResolvedValue(
      (config: Config) => {
        const { rpId, rpName, origins } = config.mfa.webauthn;
        return rpId && origins.length > 0
          ? new SimpleWebAuthnVerifier({ id: rpId, name: rpName, origins })
          : null;
      },
      [TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.MfaLoginCompletion)
    .toResolvedValue(
      (ending: SessionEnding, issuer: SessionIssuer, clock: Clock, events: LoginEvents) =>
        new MfaLoginCompletion(ending, issuer, clock, events),
      [TOKENS.SessionEnding, TOKENS.SessionIssuer, TOKENS.Clock, TOKENS.LoginEvents],
    )
    .inSingletonScope();
});
