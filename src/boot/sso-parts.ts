import type { JsonWebKey } from 'node:crypto';
import type { Logger } from '../adapters/logging/logger.js';
import { loadInterpreter } from '../adapters/openid/interpreter-loader.js';
import type { KeyUseObserver } from '../adapters/openid/jwt-signature-verifier.js';
import {
  type OpenIdCallObservation,
  OpenIdClientProvider,
} from '../adapters/openid/openid-client-provider.js';
import type { ServedProvider, SsoProviderParts } from '../application/sso/sso-providers.js';
import type { OpenIdProvider } from '../domain/sso/openid-provider.port.js';
import { ENVIRONMENT_PROVIDER_ID, type RegisteredProvider } from '../domain/sso/provider-registration.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';
import type { Config } from './config/config.js';
import { registeredProviderParts } from './registered-provider-parts.js';
import { tokenSealerFor } from './token-sealer-for.js';

/** A request to a provider, as metrics see it: which provider (its id) and how it went. */
export type ProviderCallObservation = OpenIdCallObservation & { provider: string };

export interface SsoParts {
  /** The environment's provider (OIDC_*), served as `default`; null when it is not configured. */
  environment: ServedProvider | null;
  /** Seals provider tokens kept with sessions (and opens registered providers' secrets). */
  sealer: TokenSealer;
  /** Builds a registered provider's adapters (its client and its interpreter). */
  build: (registered: RegisteredProvider) => Promise<SsoProviderParts>;
}

/**
 * Builds the environment's provider, when configured, and the means to build registered ones. Runs
 * at start-up, so a bad interpreter specifier or provider setting stops the service with a message
 * naming it; providers themselves are contacted lazily, so the service starts while one is down.
 */
export async function createSsoParts(
  config: Config,
  logger: Logger,
  overrides: {
    provider?: OpenIdProvider;
    fetch?: typeof fetch;
    /** Told about each request to a provider (metrics). */
    observer?: (call: ProviderCallObservation) => void;
    /** Told each provider's signature checks and refused keys (metrics), by provider id. */
    keyObserverFor?: (provider: string) => KeyUseObserver;
  } = {},
): Promise<SsoParts> {
  const { observer, keyObserverFor } = overrides;
  const observedAs = (provider: string) =>
    observer ? { observer: (call: OpenIdCallObservation) => observer({ ...call, provider }) } : {};
  const build = registeredProviderParts(config, {
    ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
    observerFor: (id) => observedAs(id).observer,
    ...(keyObserverFor ? { keyObserverFor } : {}),
  });
  const sealer = tokenSealerFor(config);
  if (!config.tokenEncryptionKey && config.oidc) {
    logger.warn(
      'TOKEN_ENCRYPTION_KEY is not set: provider tokens kept with sessions are sealed with a per-process key, ' +
        'so a provider logout after a restart or on another instance cannot revoke them. Set it in production.',
    );
  }
  if (!config.oidc) return { environment: null, sealer, build };
  const oidc = config.oidc;
  const provider =
    overrides.provider ??
    new OpenIdClientProvider({
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      ...(oidc.clientSecret ? { clientSecret: oidc.clientSecret } : {}),
      clientAuth: oidc.clientAuth,
      idTokenAlg: oidc.idTokenAlg,
      ...(oidc.privateKeyJwk ? { privateKeyJwk: JSON.parse(oidc.privateKeyJwk) as JsonWebKey } : {}),
      timeoutMs: oidc.timeoutMs,
      allowInsecureHttp: oidc.allowInsecureHttp,
      endpointOrigins: config.sso.endpointOrigins,
      ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
      ...observedAs(ENVIRONMENT_PROVIDER_ID),
      ...(keyObserverFor ? { keyObserver: keyObserverFor(ENVIRONMENT_PROVIDER_ID) } : {}),
    });
  const interpreter = await loadInterpreter(config.sso.interpreter, {
    usernameClaim: config.sso.usernameClaim,
    groupClaim: config.sso.groupClaim,
    env: config.interpreterSettings,
    timeoutMs: oidc.timeoutMs,
  });
  logger.info({ issuer: oidc.issuer, interpreter: interpreter.name }, 'single sign-on configured');
  const environment: ServedProvider = {
    rules: {
      id: ENVIRONMENT_PROVIDER_ID,
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      redirectUris: oidc.redirectUris,
      // The environment's provider predates customers' providers: it may log in any tenant's users.
      tenants: null,
      levels: config.sso.userLevels,
      requirePkce: oidc.requirePkce,
    },
    parts: { provider, interpreter },
  };
  return { environment, sealer, build };
}
