import type { JsonWebKey } from 'node:crypto';
import { AesTokenSealer } from '../adapters/crypto/aes-token-sealer.js';
import type { Logger } from '../adapters/logging/logger.js';
import { loadInterpreter } from '../adapters/openid/interpreter-loader.js';
import {
  type OpenIdCallObservation,
  OpenIdClientProvider,
} from '../adapters/openid/openid-client-provider.js';
import type { Config } from '../config/config.js';
import type { OpenIdProvider } from '../domain/sso/openid-provider.port.js';
import type { SsoTokenInterpreter } from '../domain/sso/sso-token-interpreter.port.js';
import type { TokenSealer } from '../domain/sso/token-sealer.port.js';

export interface SsoParts {
  provider: OpenIdProvider;
  interpreter: SsoTokenInterpreter;
  sealer: TokenSealer;
}

/**
 * Builds the SSO adapters when an OpenID provider is configured (null otherwise). Runs at start-up,
 * so a bad interpreter specifier or provider setting stops the service with a message naming it;
 * the provider itself is only contacted lazily, so the service starts while it is down.
 */
export async function createSsoParts(
  config: Config,
  logger: Logger,
  overrides: {
    provider?: OpenIdProvider;
    fetch?: typeof fetch;
    /** Told about each request to the provider (metrics). */
    observer?: (call: OpenIdCallObservation) => void;
  } = {},
): Promise<SsoParts | null> {
  if (!config.oidc) return null;
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
      ...(overrides.fetch ? { fetch: overrides.fetch } : {}),
      ...(overrides.observer ? { observer: overrides.observer } : {}),
    });
  const interpreter = await loadInterpreter(config.sso.interpreter, {
    usernameClaim: config.sso.usernameClaim,
    groupClaim: config.sso.groupClaim,
    env: config.interpreterSettings,
    timeoutMs: oidc.timeoutMs,
  });
  let sealer: TokenSealer;
  if (config.tokenEncryptionKey) {
    sealer = AesTokenSealer.fromBase64(config.tokenEncryptionKey, config.tokenEncryptionKeysPrevious);
  } else {
    logger.warn(
      'TOKEN_ENCRYPTION_KEY is not set: provider tokens kept with sessions are sealed with a per-process key, ' +
        'so a provider logout after a restart or on another instance cannot revoke them. Set it in production.',
    );
    sealer = AesTokenSealer.random();
  }
  logger.info({ issuer: oidc.issuer, interpreter: interpreter.name }, 'single sign-on configured');
  return { provider, interpreter, sealer };
}
