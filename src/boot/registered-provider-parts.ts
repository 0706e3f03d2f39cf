import type { JsonWebKey } from 'node:crypto';
import { loadInterpreter } from '../adapters/openid/interpreter-loader.js';
import type { KeyUseObserver } from '../adapters/openid/jwt-signature-verifier.js';
import {
  type OpenIdCallObservation,
  OpenIdClientProvider,
} from '../adapters/openid/openid-client-provider.js';
import type { SsoProviderParts } from '../application/sso/sso-providers.js';
import type { RegisteredProvider } from '../domain/sso/provider-registration.js';
import { BUILT_IN_INTERPRETER, type Config } from './config/config.js';

/**
 * How a registered provider becomes its adapters: an OpenID client with its own issuer, client,
 * secret and expected algorithm, and its interpreter, named in the registry and found in
 * SSO_INTERPRETERS (the deployment's code, never a path from the database), called with that
 * provider's own settings. Deployment-wide: OIDC_TIMEOUT_MS and OIDC_ALLOW_INSECURE_HTTP.
 * Node imports each interpreter module once, however many providers name it.
 */
export function registeredProviderParts(
  config: Config,
  options: {
    fetch?: typeof fetch;
    /** Told about each request to this provider (metrics), by provider id. */
    observerFor?: (providerId: string) => ((call: OpenIdCallObservation) => void) | undefined;
    /** Told this provider's signature checks and refused keys (metrics), by provider id. */
    keyObserverFor?: (providerId: string) => KeyUseObserver;
  } = {},
): (registered: RegisteredProvider) => Promise<SsoProviderParts> {
  return async (registered) => {
    const observer = options.observerFor?.(registered.id);
    const keyObserver = options.keyObserverFor?.(registered.id);
    const { secrets } = registered;
    if (secrets === null) {
      throw new Error(
        `provider "${registered.id}": its secrets do not open with TOKEN_ENCRYPTION_KEY (sealed under another key)`,
      );
    }
    const specifier =
      registered.interpreter === BUILT_IN_INTERPRETER
        ? BUILT_IN_INTERPRETER
        : config.sso.interpreters.get(registered.interpreter);
    if (specifier === undefined) {
      throw new Error(
        `provider "${registered.id}" names interpreter "${registered.interpreter}", which SSO_INTERPRETERS does not list`,
      );
    }
    const provider = new OpenIdClientProvider({
      issuer: registered.issuer,
      clientId: registered.clientId,
      clientAuth: registered.clientAuth,
      idTokenAlg: registered.idTokenAlg,
      ...(secrets.clientSecret ? { clientSecret: secrets.clientSecret } : {}),
      ...(secrets.privateKeyJwk ? { privateKeyJwk: JSON.parse(secrets.privateKeyJwk) as JsonWebKey } : {}),
      timeoutMs: config.sso.providerTimeoutMs,
      allowInsecureHttp: config.sso.allowInsecureHttp,
      endpointOrigins: config.sso.endpointOrigins,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(observer ? { observer } : {}),
      ...(keyObserver ? { keyObserver } : {}),
    });
    const interpreter = await loadInterpreter(specifier, {
      usernameClaim: registered.usernameClaim ?? config.sso.usernameClaim,
      groupClaim: registered.groupClaim ?? config.sso.groupClaim,
      env: secrets.settings,
      timeoutMs: config.sso.providerTimeoutMs,
    });
    return { provider, interpreter };
  };
}
