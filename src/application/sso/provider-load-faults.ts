import type { RegisteredProvider } from '../../domain/sso/provider-registration.js';

/** What a process's own configuration decides about loading a registered provider. */
export interface ProviderLoadingRules {
  /** Interpreter names a provider may take: the keys of SSO_INTERPRETERS, and `claims`. */
  interpreterNames: readonly string[];
  /** The environment provider's OIDC_REDIRECT_URIS, which no registered provider may take. */
  environmentRedirectUris: readonly string[];
}

/**
 * Why this process could not serve `provider`, as far as its configuration tells without building
 * anything: secrets sealed under another key, an interpreter its SSO_INTERPRETERS does not name, a
 * redirect URI its environment's provider holds. An instance refuses such a row alone (it selects
 * nothing) and `gatehouse provider list`/`show` names the same reasons, from the command's own
 * configuration. Each reason names no secret.
 */
export function providerLoadFaults(provider: RegisteredProvider, rules: ProviderLoadingRules): string[] {
  const faults: string[] = [];
  if (provider.secrets === null) {
    faults.push(
      'its secrets do not open with TOKEN_ENCRYPTION_KEY (nor TOKEN_ENCRYPTION_KEYS_PREVIOUS): they were sealed under another key',
    );
  }
  if (!rules.interpreterNames.includes(provider.interpreter)) {
    faults.push(`its interpreter ${JSON.stringify(provider.interpreter)} is not named in SSO_INTERPRETERS`);
  }
  for (const uri of provider.redirectUris) {
    if (rules.environmentRedirectUris.includes(uri)) {
      faults.push(`its redirect URI ${uri} belongs to the environment's provider (OIDC_REDIRECT_URIS)`);
    }
  }
  return faults;
}
