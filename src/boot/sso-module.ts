import { ContainerModule } from 'inversify';
import type { Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import type {
  ProviderDeployment,
  ProviderPartsOptions,
  RegistryDeployment,
} from '../adapters/openid/provider-parts.js';
import type { LoginEvents } from '../application/login-events.js';
import type { SessionEnding } from '../application/session-ending.js';
import type { SessionIssuer } from '../application/session-issuer.js';
import { BackchannelLogout } from '../application/sso/backchannel-logout.js';
import { ProviderDirectory, type ProviderLoadObserver } from '../application/sso/provider-directory.js';
import { RegistryWatch } from '../application/sso/registry-watch.js';
import { SsoLogin } from '../application/sso/sso-login.js';
import { SsoLogout } from '../application/sso/sso-logout.js';
import type { ServedProvider, SsoParts, SsoProviderParts } from '../application/sso/sso-providers.js';
import { AddressThrottle } from '../domain/login/address-throttle.js';
import { ADDRESS_FAILURE_FACTOR } from '../domain/login/login-throttle.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { ENVIRONMENT_PROVIDER_ID } from '../domain/sso/provider-registration.js';
import type { ProviderRegistry } from '../domain/sso/provider-registry.port.js';
import type { Store } from '../domain/store.port.js';
import { allowedInterpreterNames, type Config } from './config/config.js';
import { tokenSealerFor } from './token-sealer-for.js';
import { TOKENS } from './tokens.js';

/** Where no registry is given (a container without a database of providers): none registered. */
const NO_REGISTERED_PROVIDERS: Pick<ProviderRegistry, 'version' | 'list'> = {
  version: async () => 0n,
  list: async () => [],
};

/** Failures one client address may have per window: as many as the login throttle allows it. */
const addressBudget = (config: Config) => ({
  limit: config.throttle.maxFailures * ADDRESS_FAILURE_FACTOR,
  windowS: config.throttle.windowS,
});

/** A provider this instance cannot load is one warning (per version of its row), never a secret. */
function providerLoadLog(logger: Logger): ProviderLoadObserver {
  return {
    failed: (provider, reason) =>
      logger.warn(
        { provider, reason },
        `provider "${provider}" is not served by this instance: ${reason}. The other providers are.`,
      ),
    recovered: (provider) => logger.info({ provider }, `provider "${provider}" no longer fails to load`),
  };
}

/**
 * The environment's provider (OIDC_*, SSO_TOKEN_INTERPRETER and its SSO_INTERPRETER_* settings)
 * as a provider named `default`, built like a registered one. It predates customers' providers:
 * it may log in any tenant's users, at the levels SSO_USER_LEVELS names.
 */
function environmentProvider(
  config: Config,
  deployment: ProviderDeployment,
): { rules: ServedProvider['rules']; options: ProviderPartsOptions } | null {
  const oidc = config.oidc;
  if (!oidc) return null;
  return {
    rules: {
      id: ENVIRONMENT_PROVIDER_ID,
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      redirectUris: oidc.redirectUris,
      tenants: null,
      levels: config.sso.userLevels,
      requirePkce: oidc.requirePkce,
      requireMfa: oidc.requireMfa,
      acrValues: oidc.acrValues,
    },
    options: {
      id: ENVIRONMENT_PROVIDER_ID,
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientAuth: oidc.clientAuth,
      idTokenAlg: oidc.idTokenAlg,
      ...(oidc.clientSecret ? { clientSecret: oidc.clientSecret } : {}),
      ...(oidc.privateKeyJwk ? { privateKeyJwk: oidc.privateKeyJwk } : {}),
      interpreter: {
        specifier: config.sso.interpreter,
        usernameClaim: config.sso.usernameClaim,
        groupClaim: config.sso.groupClaim,
        settings: config.interpreterSettings,
      },
      deployment,
    },
  };
}

/**
 * Builds the environment's provider, when configured, and the means to build registered ones, both
 * by the OpenID adapter's `providerParts`. Runs at start-up, so a bad interpreter specifier or
 * provider setting stops the service with a message naming it; providers themselves are contacted
 * lazily, so the service starts while one is down. The OpenID adapter is imported here, not
 * above: a command (which serves no provider) does without its modules.
 */
export async function createSsoParts(
  config: Config,
  logger: Logger,
  watch: Pick<ProviderDeployment, 'fetch' | 'fetchFor' | 'observer' | 'keyObserverFor'> = {},
): Promise<SsoParts> {
  const { providerParts, registeredProviderParts } = await import('../adapters/openid/provider-parts.js');
  // The deployment's share of every provider is the SSO section of the configuration as it is.
  const deployment: RegistryDeployment = { ...config.sso, ...watch };
  const build = registeredProviderParts(deployment);
  const sealer = tokenSealerFor(config);
  if (!config.tokenEncryptionKey && config.oidc) {
    logger.warn(
      'TOKEN_ENCRYPTION_KEY is not set: provider tokens kept with sessions are sealed with a per-process key, ' +
        'so a provider logout after a restart or on another instance cannot revoke them. Set it in production.',
    );
  }
  const environment = environmentProvider(config, deployment);
  if (!environment) return { environment: null, sealer, build };
  const parts = await providerParts(environment.options);
  logger.info(
    { issuer: environment.rules.issuer, interpreter: parts.interpreter.name },
    'single sign-on configured',
  );
  return { environment: { rules: environment.rules, parts }, sealer, build };
}

/**
 * SSO: the providers this instance serves (the environment's and the registry's, kept in step by
 * the watch) and the use cases, which answer SSO_NOT_CONFIGURED while there is none.
 */
export const ssoModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.ProviderDirectory)
    .toResolvedValue(
      (
        parts: SsoParts,
        registry: ProviderRegistry | null,
        config: Config,
        logger: Logger,
        metrics: GatehouseMetrics | null,
      ) => {
        const directory = new ProviderDirectory<SsoProviderParts>(
          registry ?? NO_REGISTERED_PROVIDERS,
          parts.environment,
          parts.build,
          {
            interpreterNames: allowedInterpreterNames(config),
            // An interpreter's module and factory get as long as a call to a provider.
            buildTimeoutMs: config.sso.providerTimeoutMs,
            observer: providerLoadLog(logger),
          },
        );
        metrics?.watchProviderLoad(() => directory.failures().keys());
        return directory;
      },
      [TOKENS.SsoParts, TOKENS.ProviderRegistry, TOKENS.Config, TOKENS.Logger, TOKENS.Metrics],
    )
    .inSingletonScope();
  bind(TOKENS.RegistryWatch)
    .toResolvedValue(
      (directory: ProviderDirectory<SsoProviderParts>, config: Config, logger: Logger) =>
        new RegistryWatch(directory, config.sso.registryPollMs, (error) =>
          logger.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'provider registry reload failed; the providers stay as they were',
          ),
        ),
      [TOKENS.ProviderDirectory, TOKENS.Config, TOKENS.Logger],
    )
    .inSingletonScope();
  bind(TOKENS.SsoLogin)
    .toResolvedValue(
      (
        parts: SsoParts,
        directory: ProviderDirectory<SsoProviderParts>,
        store: Store,
        issuer: SessionIssuer,
        ending: SessionEnding,
        config: Config,
        events: LoginEvents,
        clock: Clock,
      ) =>
        new SsoLogin(
          store,
          directory,
          parts.sealer,
          issuer,
          ending,
          events,
          clock,
          new AddressThrottle(store.throttle, 'sso', addressBudget(config)),
          config.session.absoluteTimeoutS,
        ),
      [
        TOKENS.SsoParts,
        TOKENS.ProviderDirectory,
        TOKENS.Store,
        TOKENS.SessionIssuer,
        TOKENS.SessionEnding,
        TOKENS.Config,
        TOKENS.LoginEvents,
        TOKENS.Clock,
      ],
    )
    .inSingletonScope();
  bind(TOKENS.SsoLogout)
    .toResolvedValue(
      (
        parts: SsoParts,
        directory: ProviderDirectory<SsoProviderParts>,
        store: Store,
        ending: SessionEnding,
        clock: Clock,
      ) => new SsoLogout(store, ending, directory, parts.sealer, clock),
      [TOKENS.SsoParts, TOKENS.ProviderDirectory, TOKENS.Store, TOKENS.SessionEnding, TOKENS.Clock],
    )
    .inSingletonScope();
  bind(TOKENS.BackchannelLogout)
    .toResolvedValue(
      (
        directory: ProviderDirectory<SsoProviderParts>,
        ending: SessionEnding,
        clock: Clock,
        store: Store,
        config: Config,
        events: LoginEvents,
      ) =>
        new BackchannelLogout(
          ending,
          directory,
          clock,
          new AddressThrottle(store.throttle, 'backchannel', addressBudget(config), () =>
            events.loginThrottled?.({ method: 'sso', operation: 'backchannel_logout' }),
          ),
        ),
      [
        TOKENS.ProviderDirectory,
        TOKENS.SessionEnding,
        TOKENS.Clock,
        TOKENS.Store,
        TOKENS.Config,
        TOKENS.LoginEvents,
      ],
    )
    .inSingletonScope();
});
