import type { JsonWebKey } from 'node:crypto';
import type { SsoProviderParts } from '../../application/sso/sso-providers.js';
import {
  BUILT_IN_INTERPRETER,
  type ClientAuthMethod,
  type IdTokenAlgorithm,
  type RegisteredProvider,
} from '../../domain/sso/provider-registration.js';
import { loadInterpreter } from './interpreter-loader.js';
import type { KeyUseObserver } from './jwt-signature-verifier.js';
import { OpenIdClientProvider } from './openid-client-provider.js';
import type { OpenIdCallObservation } from './provider-fetch.js';

/** A request to a provider, as metrics see it: which provider (its id) and how it went. */
export type ProviderCallObservation = OpenIdCallObservation & { provider: string };

/**
 * What every provider of one deployment shares, the environment's and the registered ones alike
 * (OIDC_TIMEOUT_MS, OIDC_ALLOW_INSECURE_HTTP, OIDC_ENDPOINT_ORIGINS), and what watches them.
 */
export interface ProviderDeployment {
  /** Bound on each request to a provider, and on an interpreter's factory. */
  providerTimeoutMs: number;
  allowInsecureHttp: boolean;
  endpointOrigins: readonly string[];
  /** Replaces the network fetch of every provider (tests). */
  fetch?: typeof fetch;
  /** Wraps the fetch of each provider, told its id (tracing: a span per call, named by provider). */
  fetchFor?: (providerId: string, fetch: typeof globalThis.fetch) => typeof globalThis.fetch;
  /** Told about each request to a provider (metrics), with that provider's id. */
  observer?: (call: ProviderCallObservation) => void;
  /** Told a provider's signature checks and refused keys (metrics), by provider id. */
  keyObserverFor?: (providerId: string) => KeyUseObserver;
}

/** One provider, in plain values, wherever it was configured (the environment or the registry). */
export interface ProviderPartsOptions {
  /** `default` for the environment's (OIDC_*), the registry's id for the others. */
  id: string;
  issuer: string;
  clientId: string;
  clientAuth: ClientAuthMethod;
  idTokenAlg: IdTokenAlgorithm;
  clientSecret?: string;
  /** A private JWK as JSON text, for private_key_jwt. */
  privateKeyJwk?: string;
  interpreter: {
    /** A built-in interpreter's name, a package name or a path (relative to the working directory). */
    specifier: string;
    usernameClaim: string;
    groupClaim: string;
    /** The interpreter's own settings; values may be secrets. */
    settings: Readonly<Record<string, string>>;
  };
  deployment: ProviderDeployment;
}

/**
 * The one way a provider becomes its adapters: an OpenID client of its own issuer, client,
 * credentials and expected algorithm, and its interpreter called with its own settings. A setting
 * that cannot work (an http issuer, a credential missing, an interpreter that does not load)
 * throws here, naming it. Node imports each interpreter module once, however many providers name it.
 */
export async function providerParts(options: ProviderPartsOptions): Promise<SsoProviderParts> {
  const { id, deployment } = options;
  const { observer, keyObserverFor } = deployment;
  const provider = new OpenIdClientProvider({
    issuer: options.issuer,
    clientId: options.clientId,
    clientAuth: options.clientAuth,
    idTokenAlg: options.idTokenAlg,
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    ...(options.privateKeyJwk ? { privateKeyJwk: JSON.parse(options.privateKeyJwk) as JsonWebKey } : {}),
    timeoutMs: deployment.providerTimeoutMs,
    allowInsecureHttp: deployment.allowInsecureHttp,
    endpointOrigins: deployment.endpointOrigins,
    ...(deployment.fetchFor
      ? { fetch: deployment.fetchFor(id, deployment.fetch ?? globalThis.fetch) }
      : deployment.fetch
        ? { fetch: deployment.fetch }
        : {}),
    ...(observer ? { observer: (call: OpenIdCallObservation) => observer({ ...call, provider: id }) } : {}),
    ...(keyObserverFor ? { keyObserver: keyObserverFor(id) } : {}),
  });
  const interpreter = await loadInterpreter(options.interpreter.specifier, {
    usernameClaim: options.interpreter.usernameClaim,
    groupClaim: options.interpreter.groupClaim,
    env: options.interpreter.settings,
    timeoutMs: deployment.providerTimeoutMs,
  });
  return { provider, interpreter };
}

/** Where a deployment finds its registered providers' interpreters, and the claims they default to. */
export interface RegistryDeployment extends ProviderDeployment {
  /**
   * SSO_INTERPRETERS: the modules a registry row may name, by name (the deployment's code, never a
   * path from the database). A Map, so `constructor` or `__proto__` finds only what was configured.
   */
  interpreters: ReadonlyMap<string, string>;
  /** SSO_USERNAME_CLAIM and SSO_GROUP_CLAIM, for a row that names no claim of its own. */
  usernameClaim: string;
  groupClaim: string;
}

/**
 * How a registry row becomes its adapters, by `providerParts`: its interpreter found by name in
 * SSO_INTERPRETERS (or the built-in one), its secrets opened. A row that cannot be built so (its
 * secrets sealed under another key, an interpreter the deployment does not list) throws, naming it.
 */
export function registeredProviderParts(
  deployment: RegistryDeployment,
): (registered: RegisteredProvider) => Promise<SsoProviderParts> {
  return async (registered) => {
    const { secrets } = registered;
    if (secrets === null) {
      throw new Error(
        `provider "${registered.id}": its secrets do not open with TOKEN_ENCRYPTION_KEY (sealed under another key)`,
      );
    }
    const specifier =
      registered.interpreter === BUILT_IN_INTERPRETER
        ? BUILT_IN_INTERPRETER
        : deployment.interpreters.get(registered.interpreter);
    if (specifier === undefined) {
      throw new Error(
        `provider "${registered.id}" names interpreter "${registered.interpreter}", which SSO_INTERPRETERS does not list`,
      );
    }
    return providerParts({
      id: registered.id,
      issuer: registered.issuer,
      clientId: registered.clientId,
      clientAuth: registered.clientAuth,
      idTokenAlg: registered.idTokenAlg,
      ...(secrets.clientSecret ? { clientSecret: secrets.clientSecret } : {}),
      ...(secrets.privateKeyJwk ? { privateKeyJwk: secrets.privateKeyJwk } : {}),
      interpreter: {
        specifier,
        usernameClaim: registered.usernameClaim ?? deployment.usernameClaim,
        groupClaim: registered.groupClaim ?? deployment.groupClaim,
        settings: secrets.settings,
      },
      deployment,
    });
  };
}
