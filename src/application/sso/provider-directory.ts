import { ssoAdmits } from '../../domain/login/login-policy.js';
import {
  ENVIRONMENT_PROVIDER_ID,
  type RegisteredProvider,
  sessionPredatesProvider,
} from '../../domain/sso/provider-registration.js';
import type { ProviderRegistry } from '../../domain/sso/provider-registry.port.js';
import type { User } from '../../domain/user/user.js';

/** What the login needs to know of a provider before it calls it: who it may log in, and how. */
export interface ProviderRules {
  id: string;
  /** The issuer and client id a back-channel logout token is matched by (its `iss` and `aud`). */
  issuer: string;
  clientId: string;
  redirectUris: readonly string[];
  /** The tenants whose users it may log in; null: any (the environment's provider). */
  tenants: readonly string[] | null;
  levels: readonly number[];
  requirePkce: boolean;
}

/** One enabled provider: its rules, and the adapters built for it once (client, interpreter). */
export interface DirectoryEntry<Parts> {
  rules: ProviderRules;
  parts: Parts;
}

/** A redirect URI claimed twice, by the environment (OIDC_REDIRECT_URIS) and a registered provider. */
export class RedirectUriCollisionError extends Error {
  constructor(
    readonly uri: string,
    readonly providerId: string,
  ) {
    super(`OIDC_REDIRECT_URIS: ${uri} is also a redirect URI of registered provider "${providerId}"`);
    this.name = 'RedirectUriCollisionError';
  }
}

/**
 * The providers this instance serves: the environment's (`default`, when configured) and every
 * enabled registered one, found by the exact `redirect_uri` a login names. Registry changes reach
 * it by `refresh()`, which reads only the registry's version unless it moved; a provider's
 * adapters are built once and kept until that provider changes, so a thousand providers cost a
 * login no more than one (a map lookup).
 */
export class ProviderDirectory<Parts> {
  private byRedirectUri = new Map<string, DirectoryEntry<Parts>>();
  private byId = new Map<string, DirectoryEntry<Parts>>();
  /** The registry row each entry was built from (its `updatedAt`), to rebuild only what changed. */
  private builtFrom = new Map<string, number>();
  private version: bigint | null = null;
  private failed = new Map<string, Error>();
  /**
   * Enabled registered providers, built or not (their sessions stay usable): since when, and whom
   * they admit.
   */
  private enabled = new Map<string, Pick<RegisteredProvider, 'enabledSince' | 'tenants' | 'levels'>>();

  constructor(
    private readonly registry: Pick<ProviderRegistry, 'version' | 'list'>,
    private readonly environment: DirectoryEntry<Parts> | null,
    private readonly build: (provider: RegisteredProvider) => Promise<Parts>,
  ) {}

  /** The provider whose redirect URIs hold `redirectUri` exactly, or null (no call to any provider). */
  select(redirectUri: string): DirectoryEntry<Parts> | null {
    return this.byRedirectUri.get(redirectUri) ?? null;
  }

  find(id: string): DirectoryEntry<Parts> | null {
    return this.byId.get(id) ?? null;
  }

  entries(): DirectoryEntry<Parts>[] {
    return [...this.byId.values()];
  }

  /** No provider at all: none in the environment, none enabled in the registry. */
  isEmpty(): boolean {
    return this.environment === null && this.enabled.size === 0;
  }

  /**
   * Whether an SSO session of this provider, made at `sessionCreatedAt` for `user`, may still be
   * used: the environment's while it is configured; a registered one's while it is enabled (even
   * when its adapters failed to build, so a broken interpreter stops new logins, not the sessions
   * already made), only if made since it was last enabled or added (no disable, remove or re-add
   * of the id can be undone for a session the offboarding missed), and only while it still admits
   * the user (its tenants and levels, as a login checks them).
   */
  isServed(providerId: string, sessionCreatedAt: Date, user: User): boolean {
    // Not loaded yet: nothing is known to be offboarded, so nothing is ended on that account.
    if (this.version === null) return true;
    if (providerId === ENVIRONMENT_PROVIDER_ID) return this.environment !== null;
    const provider = this.enabled.get(providerId);
    return (
      provider !== undefined &&
      !sessionPredatesProvider(sessionCreatedAt, provider.enabledSince) &&
      ssoAdmits(user, provider)
    );
  }

  /**
   * The providers a back-channel logout token may come from: those whose issuer is its `iss` and
   * whose client id is among its `aud` (two providers may share an issuer, never both).
   */
  forLogoutToken(issuer: string, audiences: readonly string[]): DirectoryEntry<Parts>[] {
    return this.entries().filter(
      (entry) => entry.rules.issuer === issuer && audiences.includes(entry.rules.clientId),
    );
  }

  /** Enabled providers whose adapters could not be built (an interpreter factory that threw), by id. */
  failures(): ReadonlyMap<string, Error> {
    return this.failed;
  }

  /**
   * Applies the registry as it is now, when its version moved since the last call (always on the
   * first). Returns whether anything was reloaded. A registered provider claiming a redirect URI
   * of the environment's is refused here with RedirectUriCollisionError (the command refuses it
   * too; this catches an environment changed after the registration).
   */
  async refresh(): Promise<boolean> {
    const version = await this.registry.version();
    if (version === this.version) return false;
    const providers = (await this.registry.list()).filter((provider) => provider.enabled);
    const byId = new Map<string, DirectoryEntry<Parts>>();
    const byRedirectUri = new Map<string, DirectoryEntry<Parts>>();
    const builtFrom = new Map<string, number>();
    const failed = new Map<string, Error>();
    if (this.environment) {
      byId.set(ENVIRONMENT_PROVIDER_ID, this.environment);
      for (const uri of this.environment.rules.redirectUris) byRedirectUri.set(uri, this.environment);
    }
    for (const provider of providers) {
      const stamp = provider.updatedAt.getTime();
      let entry = this.builtFrom.get(provider.id) === stamp ? this.byId.get(provider.id) : undefined;
      if (!entry) {
        try {
          entry = { rules: rulesOf(provider), parts: await this.build(provider) };
        } catch (error) {
          // One customer's broken interpreter must not take the others' logins down: its
          // redirect URIs select nothing until it is fixed, and `failures()` says why.
          failed.set(provider.id, error instanceof Error ? error : new Error(String(error)));
          continue;
        }
      }
      for (const uri of provider.redirectUris) {
        const holder = byRedirectUri.get(uri);
        if (holder)
          throw new RedirectUriCollisionError(
            uri,
            holder === this.environment ? provider.id : holder.rules.id,
          );
        byRedirectUri.set(uri, entry);
      }
      byId.set(provider.id, entry);
      builtFrom.set(provider.id, stamp);
    }
    this.byId = byId;
    this.byRedirectUri = byRedirectUri;
    this.builtFrom = builtFrom;
    this.failed = failed;
    this.enabled = new Map(providers.map((provider) => [provider.id, provider]));
    this.version = version;
    return true;
  }
}

function rulesOf(provider: RegisteredProvider): ProviderRules {
  return {
    id: provider.id,
    issuer: provider.issuer,
    clientId: provider.clientId,
    redirectUris: provider.redirectUris,
    tenants: provider.tenants,
    levels: provider.levels,
    requirePkce: provider.requirePkce,
  };
}
