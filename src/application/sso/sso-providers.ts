import type { OpenIdProvider } from '../../domain/sso/openid-provider.port.js';
import type { RegisteredProvider } from '../../domain/sso/provider-registration.js';
import type { SsoTokenInterpreter } from '../../domain/sso/sso-token-interpreter.port.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';
import type { DirectoryEntry, ProviderDirectory } from './provider-directory.js';

/** The adapters one provider logs in through: its OpenID client and its customer's interpreter. */
export interface SsoProviderParts {
  provider: OpenIdProvider;
  interpreter: SsoTokenInterpreter;
}

/** One provider this instance serves: the rules that keep its customers apart, and its adapters. */
export type ServedProvider = DirectoryEntry<SsoProviderParts>;

/** What the SSO use cases ask of the providers this instance serves. */
export type SsoProviders = Pick<
  ProviderDirectory<SsoProviderParts>,
  'select' | 'find' | 'isEmpty' | 'isServed' | 'forLogoutToken'
>;

/**
 * What an instance that serves SSO starts with: the environment's provider, built at start-up,
 * and the means to build registered ones (both by the same function, the OpenID adapter's
 * `providerParts`), and the sealer of provider tokens kept with sessions.
 */
export interface SsoParts {
  /** The environment's provider (OIDC_*), served as `default`; null when it is not configured. */
  environment: ServedProvider | null;
  /** Seals provider tokens kept with sessions (and opens registered providers' secrets). */
  sealer: TokenSealer;
  /** Builds a registered provider's adapters (its client and its interpreter). */
  build: (registered: RegisteredProvider) => Promise<SsoProviderParts>;
}
