import { ContainerModule } from 'inversify';
import { AdminDirectory } from '../application/admin/admin-directory.js';
import { AdminProviders } from '../application/admin/admin-providers.js';
import { AdminUsers } from '../application/admin/admin-users.js';
import { ImportUsers } from '../application/admin/import-users.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { ProviderRegistry } from '../domain/sso/provider-registry.port.js';
import type { Store } from '../domain/store.port.js';
import { allowedInterpreterNames, type Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/**
 * The administration use cases behind the `gatehouse` command, from the same container as the
 * service's: the same store, hasher, policy, clock, and the same way to end sessions (audited and
 * reported as `session_ended` lines).
 */
export const adminModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.AdminUsers)
    .toResolvedValue(
      (
        store: Store,
        hasher: PasswordHasher,
        policy: PasswordPolicy,
        clock: Clock,
        random: Random,
        ending: SessionEnding,
      ) => new AdminUsers(store, hasher, policy, clock, random, ending),
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        TOKENS.PasswordPolicy,
        TOKENS.Clock,
        TOKENS.Random,
        TOKENS.SessionEnding,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.AdminDirectory)
    .toResolvedValue((store: Store) => new AdminDirectory(store), [TOKENS.Store])
    .inSingletonScope();
  bind(TOKENS.AdminProviders)
    .toResolvedValue(
      (registry: ProviderRegistry | null, config: Config, clock: Clock, ending: SessionEnding) => {
        if (!registry) throw new Error('this container was built without a provider registry');
        // The rules `gatehouse provider` applies: interpreters the deployment allows, redirect URIs
        // the environment's provider holds, and no secret accepted without a key to seal it.
        return new AdminProviders(
          registry,
          {
            interpreterNames: allowedInterpreterNames(config),
            environmentRedirectUris: config.oidc?.redirectUris ?? [],
            canSealSecrets: config.tokenEncryptionKey !== undefined,
          },
          clock,
          ending,
        );
      },
      [TOKENS.ProviderRegistry, TOKENS.Config, TOKENS.Clock, TOKENS.SessionEnding],
    )
    .inSingletonScope();
  bind(TOKENS.ImportUsers)
    .toResolvedValue(
      (store: Store, hasher: PasswordHasher, clock: Clock, random: Random) =>
        new ImportUsers(store, hasher, clock, random),
      [TOKENS.Store, TOKENS.PasswordHasher, TOKENS.Clock, TOKENS.Random],
    )
    .inSingletonScope();
});
