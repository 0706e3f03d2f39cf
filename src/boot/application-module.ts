import { ContainerModule } from 'inversify';
import type { Logger } from '../adapters/logging/logger.js';
import { AdminAudit } from '../application/admin/admin-audit.js';
import { AdminDirectory } from '../application/admin/admin-directory.js';
import { AdminProviders } from '../application/admin/admin-providers.js';
import { AdminUsers } from '../application/admin/admin-users.js';
import { ImportUsers } from '../application/admin/import-users.js';
import { ChangePassword } from '../application/change-password.js';
import type { LoginEvents, SessionCheckObserver } from '../application/login-events.js';
import { Logout } from '../application/logout.js';
import { PasswordLogin } from '../application/password-login.js';
import { Purger } from '../application/purger.js';
import { ReportingLoginThrottle } from '../application/reporting-login-throttle.js';
import { type ProviderStatus, SessionAuthenticator } from '../application/session-authenticator.js';
import { SessionEnding } from '../application/session-ending.js';
import { SessionIssuer } from '../application/session-issuer.js';
import { SessionManagement } from '../application/session-management.js';
import type { SessionSettings } from '../application/session-settings.js';
import type { DeviceProofs } from '../domain/login/device-proofs.port.js';
import { LoginThrottle } from '../domain/login/login-throttle.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { PasswordPolicy } from '../domain/password/password-policy.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { ProviderRegistry } from '../domain/sso/provider-registry.port.js';
import type { EndingStore, Store } from '../domain/store.port.js';
import { allowedInterpreterNames, type Config } from './config/config.js';
import { TOKENS } from './tokens.js';

/** One purge cycle deletes at most this many batches per table; the next cycle goes on. */
const PURGE_MAX_BATCHES_PER_CYCLE = 20;

/** Use cases, the administration's included: plain classes, no decorators, bound with explicit tokens. */
export const applicationModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.SessionSettings)
    .toResolvedValue(
      (config: Config): SessionSettings => ({
        idleTimeoutS: config.session.idleTimeoutS,
        absoluteTimeoutS: config.session.absoluteTimeoutS,
        perUserMax: config.session.perUserMax,
        provideBackendInfo: config.provideBackendInfo,
        passwordMaxAgeDays: config.password.maxAgeDays,
      }),
      [TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.LoginThrottle)
    .toResolvedValue(
      (store: Store, config: Config) => new LoginThrottle(store.throttle, config.throttle),
      [TOKENS.Store, TOKENS.Config],
    )
    .inSingletonScope();
  bind(TOKENS.SessionEnding)
    .toResolvedValue(
      (store: EndingStore, clock: Clock, events: LoginEvents) => new SessionEnding(store, clock, events),
      [TOKENS.Store, TOKENS.Clock, TOKENS.LoginEvents],
    )
    .inSingletonScope();
  bind(TOKENS.SessionIssuer)
    .toResolvedValue(
      (clock: Clock, random: Random, settings: SessionSettings) => new SessionIssuer(clock, random, settings),
      [TOKENS.Clock, TOKENS.Random, TOKENS.SessionSettings],
    )
    .inSingletonScope();
  bind(TOKENS.SessionAuthenticator)
    .toResolvedValue(
      (
        store: Store,
        clock: Clock,
        settings: SessionSettings,
        checks: SessionCheckObserver,
        events: LoginEvents,
        ending: SessionEnding,
        providers: ProviderStatus,
      ) => new SessionAuthenticator(store, clock, settings, ending, checks, events, providers),
      [
        TOKENS.Store,
        TOKENS.Clock,
        TOKENS.SessionSettings,
        TOKENS.SessionCheckObserver,
        TOKENS.LoginEvents,
        TOKENS.SessionEnding,
        TOKENS.ProviderDirectory,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.PasswordLogin)
    .toResolvedValue(
      (
        store: Store,
        hasher: PasswordHasher,
        config: Config,
        issuer: SessionIssuer,
        clock: Clock,
        events: LoginEvents,
        devices: DeviceProofs,
        ending: SessionEnding,
      ) => {
        const throttle = new ReportingLoginThrottle(store.throttle, config.throttle, () =>
          events.loginThrottled?.({ method: 'password', operation: 'login' }),
        );
        return new PasswordLogin(store, hasher, throttle, issuer, clock, events, devices, ending, config.mfa);
      },
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        TOKENS.Config,
        TOKENS.SessionIssuer,
        TOKENS.Clock,
        TOKENS.LoginEvents,
        TOKENS.DeviceProofs,
        TOKENS.SessionEnding,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.Logout)
    .toResolvedValue((ending: SessionEnding) => new Logout(ending), [TOKENS.SessionEnding])
    .inSingletonScope();
  bind(TOKENS.SessionManagement)
    .toResolvedValue(
      (store: Store, clock: Clock, settings: SessionSettings, ending: SessionEnding) =>
        new SessionManagement(store, clock, settings, ending),
      [TOKENS.Store, TOKENS.Clock, TOKENS.SessionSettings, TOKENS.SessionEnding],
    )
    .inSingletonScope();
  bind(TOKENS.Purger)
    .toResolvedValue(
      (store: Store, clock: Clock, config: Config, logger: Logger) =>
        new Purger(
          store,
          clock,
          {
            intervalS: config.purge.intervalS,
            batchSize: config.purge.batchSize,
            maxBatchesPerCycle: PURGE_MAX_BATCHES_PER_CYCLE,
            idleTimeoutS: config.session.idleTimeoutS,
            throttleWindowS: config.throttle.windowS,
            auditRetentionDays: config.audit.retentionDays,
          },
          {
            purged: (counts) => {
              if (Object.values(counts).some((count) => count > 0)) logger.info({ ...counts }, 'purged');
            },
            failed: (error) => logger.warn({ err: error }, 'purge failed; next cycle retries'),
          },
        ),
      [TOKENS.Store, TOKENS.Clock, TOKENS.Config, TOKENS.Logger],
    )
    .inSingletonScope();
  bind(TOKENS.ChangePassword)
    .toResolvedValue(
      (
        store: Store,
        hasher: PasswordHasher,
        policy: PasswordPolicy,
        config: Config,
        issuer: SessionIssuer,
        clock: Clock,
        events: LoginEvents,
        ending: SessionEnding,
      ) => {
        const throttle = new ReportingLoginThrottle(store.throttle, config.throttle, () =>
          events.loginThrottled?.({ method: 'password', operation: 'password_change' }),
        );
        return new ChangePassword(store, hasher, policy, throttle, issuer, clock, events, ending);
      },
      [
        TOKENS.Store,
        TOKENS.PasswordHasher,
        TOKENS.PasswordPolicy,
        TOKENS.Config,
        TOKENS.SessionIssuer,
        TOKENS.Clock,
        TOKENS.LoginEvents,
        TOKENS.SessionEnding,
      ],
    )
    .inSingletonScope();
  // The administration use cases behind the `gatehouse` command and the facade's `admin`: the
  // same store, hasher, policy and clock as the service's, and the same way to end sessions
  // (audited and reported as `session_ended` lines).
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
  bind(TOKENS.AdminAudit)
    .toResolvedValue((store: Store) => new AdminAudit(store), [TOKENS.Store])
    .inSingletonScope();
  // Loaded at the first probe: a command that tests no provider never loads the OpenID client.
  bind(TOKENS.ProviderProbe).toConstantValue(async (target) =>
    (await import('../adapters/openid/provider-probe.js')).probeProvider(target),
  );
});
