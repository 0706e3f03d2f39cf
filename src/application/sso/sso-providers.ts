import type { OpenIdProvider } from '../../domain/sso/openid-provider.port.js';
import type { SsoTokenInterpreter } from '../../domain/sso/sso-token-interpreter.port.js';
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
