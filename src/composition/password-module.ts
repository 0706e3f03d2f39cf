import { ContainerModule } from 'inversify';
import { Argon2PasswordHasher } from '../adapters/password/argon2-password-hasher.js';
import type { Config } from '../config/config.js';
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
});
