import { ContainerModule } from 'inversify';
import { DEVICE_PROOF_KEY_BYTES, HmacDeviceProofs } from '../adapters/crypto/hmac-device-proofs.js';
import { KeptSecret } from '../adapters/crypto/kept-secret.js';
import { Argon2PasswordHasher } from '../adapters/password/argon2-password-hasher.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { passwordPolicyFor } from './password-policy-for.js';
import { secretSealingFor } from './secret-sealing-for.js';
import { TOKENS } from './tokens.js';

export const passwordModule = new ContainerModule(({ bind, isBound }) => {
  if (!isBound(TOKENS.PasswordHasher)) {
    bind(TOKENS.PasswordHasher)
      .toResolvedValue((config: Config) => new Argon2PasswordHasher(config.password.argon2), [TOKENS.Config])
      .inSingletonScope();
  }
  bind(TOKENS.PasswordPolicy)
    .toResolvedValue((config: Config) => passwordPolicyFor(config), [TOKENS.Config])
    .inSingletonScope();
  // The signing key lives in the store, made by the first instance that needs it, sealed with
  // TOKEN_ENCRYPTION_KEY when that is set.
  bind(TOKENS.DeviceProofKey)
    .toResolvedValue(
      (store: Store, random: Random, config: Config) =>
        new KeptSecret(
          store.secrets,
          'device_proof_key',
          { bytes: DEVICE_PROOF_KEY_BYTES, random },
          secretSealingFor(config),
        ),
      [TOKENS.Store, TOKENS.Random, TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.DeviceProofs)
    .toResolvedValue(
      (key: KeptSecret, random: Random) => new HmacDeviceProofs(() => key.read(), random),
      [TOKENS.DeviceProofKey, TOKENS.Random],
    )
    .inSingletonScope();
});
