import { ContainerModule } from 'inversify';
import { HmacDeviceProofs } from '../adapters/crypto/hmac-device-proofs.js';
import { Argon2PasswordHasher } from '../adapters/password/argon2-password-hasher.js';
import type { Config } from '../config/config.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import { passwordPolicyFor } from './password-policy-for.js';
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
  // The signing key lives in the store, made by the first instance that needs it.
  bind(TOKENS.DeviceProofs)
    .toResolvedValue(
      (store: Store, random: Random) =>
        new HmacDeviceProofs((candidate) => store.secrets.obtain('device_proof_key', candidate), random),
      [TOKENS.Store, TOKENS.Random],
    )
    .inSingletonScope();
});
