import { ssoAdmits } from '../../domain/login/login-policy.js';
import {
  ENVIRONMENT_PROVIDER_ID,
  type RegisteredProvider,
  sessionPredatesProvider,
} from '../../domain/sso/provider-registration.js';
import type { ProviderRegistry } from '../../domain/sso/provider-registry.port.js';
import type { User } from '../../domain/user/user.js';
import { providerLoadFaults } from './provider-load-faults.js';

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
  /** Its ID tokens must vouch for a second factor (contract 3b). */
  requireMfa: boolean;
  /** `acr` values that count as a second factor. */
  acrValues: readonly string[];
}

/** One enabled provider: its rules, and the adapters built for it once (client, interpreter). */
export interface DirectoryEntry<Parts> {
  rules: ProviderRules;
  parts: Parts;
}

/** Told when a registered provider cannot be loaded here, and when it no longer fails. */
export interface ProviderLoadObserver {
  /** Once per version of the provider's row: it selects nothing here until it changes. */
  failed(providerId: string, reason: string): void;
  /** It loads now, or it was disabled or removed. */
  recovered(providerId: string): void;
}

export interface ProviderDirectoryOptions {
  /** The interpreter names this process can load (SSO_INTERPRETERS and `claims`); unchecked when absent. */
  interpreterNames?: readonly string[];
  /**
   * How long one provider's adapters may take to build (its interpreter module imported, its
   * factory called): one that never settles is a failure of that provider, not a hang of the
   * directory. Default 10 s.
   */
  buildTimeoutMs?: number;
  observer?: ProviderLoadObserver;
}

const DEFAULT_BUILD_TIMEOUT_MS = 10_000;

/** Why a registered provider is not served here: the reason names no secret. */
export class ProviderLoadError extends Error {
  constructor(
    readonly providerId: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'ProviderLoadError';
  }
}

/** A provider loaded, or refused, from one version of its registry row (`updatedAt`). */
type Loaded<Parts> =
  | { id: string; stamp: number; entry: DirectoryEntry<Parts> }
  | { id: string; stamp: number; error: Error };

/**
 * The providers this instance serves: the environment's (`default`, when configured) and every
 * enabled registered one, found by the exact `redirect_uri` a login names. Registry changes reach
 * it by `refresh()`, which reads only the registry's version unless it moved; a provider's
 * adapters are built once and kept until that provider changes, so a thousand providers cost a
 * login no more than one (a map lookup).
 *
 * A registered provider that cannot be loaded harms only itself: secrets sealed under another
 * key, an interpreter not named here, a redirect URI the environment's provider holds, a factory
 * that throws or never settles. Its redirect URIs select nothing, the others load, later changes
 * keep applying, and `failures()` (and the observer) say why. It is tried again when its row
 * changes (`provider update`, or `disable` then `enable`) or the instance restarts.
 */
export class ProviderDirectory<Parts> {
  private byRedirectUri = new Map<string, DirectoryEntry<Parts>>();
  private byId = new Map<string, DirectoryEntry<Parts>>();
  /** The registry row each entry was built from (its `updatedAt`), to rebuild only what changed. */
  private builtFrom = new Map<string, number>();
  private version: bigint | null = null;
  /** Enabled registered providers that could not be loaded, with the row version that failed. */
  private failed = new Map<string, { stamp: number; error: Error }>();
  /**
   * Enabled registered providers, built or not (their sessions stay usable): since when, and whom
   * they admit.
   */
  private enabled = new Map<string, Pick<RegisteredProvider, 'enabledSince' | 'tenants' | 'levels'>>();

  constructor(
    private readonly registry: Pick<ProviderRegistry, 'version' | 'list'>,
    private readonly environment: DirectoryEntry<Parts> | null,
    private readonly build: (provider: RegisteredProvider) => Promise<Parts>,
    private readonly options: ProviderDirectoryOptions = {},
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

  /** Enabled registered providers this instance could not load, by id, with the reason. */
  failures(): ReadonlyMap<string, Error> {
    return new Map([...this.failed].map(([id, failure]) => [id, failure.error]));
  }

  /**
   * Applies the registry as it is now, when its version moved since the last call (always on the
   * first). Returns whether anything was reloaded. Fails only when the registry cannot be read
   * (the providers then stay as they were); a provider that cannot be loaded is refused alone.
   * A redirect URI claimed by the environment (OIDC_REDIRECT_URIS) and a registered provider stays
   * the environment's: the deployment's own configuration wins over a row added from a shell.
   */
  async refresh(): Promise<boolean> {
    const version = await this.registry.version();
    if (version === this.version) return false;
    const providers = (await this.registry.list()).filter((provider) => provider.enabled);
    // Built side by side: one slow interpreter factory delays a reload by its bound, not by the sum.
    const loaded = await Promise.all(providers.map((provider) => this.load(provider)));
    const byId = new Map<string, DirectoryEntry<Parts>>();
    const byRedirectUri = new Map<string, DirectoryEntry<Parts>>();
    const builtFrom = new Map<string, number>();
    const failed = new Map<string, { stamp: number; error: Error }>();
    if (this.environment) {
      byId.set(ENVIRONMENT_PROVIDER_ID, this.environment);
      for (const uri of this.environment.rules.redirectUris) byRedirectUri.set(uri, this.environment);
    }
    for (const result of loaded) {
      if ('error' in result) {
        failed.set(result.id, { stamp: result.stamp, error: result.error });
        continue;
      }
      // A registry keeps each redirect URI once; should one be held twice anyway, the later
      // provider is refused whole rather than sharing it.
      const holder = result.entry.rules.redirectUris
        .map((uri) => byRedirectUri.get(uri))
        .find((entry) => entry !== undefined);
      if (holder) {
        const error = new ProviderLoadError(
          result.id,
          `a redirect URI of it belongs to provider ${JSON.stringify(holder.rules.id)}`,
        );
        failed.set(result.id, { stamp: result.stamp, error });
        continue;
      }
      for (const uri of result.entry.rules.redirectUris) byRedirectUri.set(uri, result.entry);
      byId.set(result.id, result.entry);
      builtFrom.set(result.id, result.stamp);
    }
    this.report(failed);
    this.byId = byId;
    this.byRedirectUri = byRedirectUri;
    this.builtFrom = builtFrom;
    this.failed = failed;
    this.enabled = new Map(providers.map((provider) => [provider.id, provider]));
    this.version = version;
    return true;
  }

  /** The provider's entry, kept when its row did not change; else built, within the bound. */
  private async load(provider: RegisteredProvider): Promise<Loaded<Parts>> {
    const { id } = provider;
    const stamp = provider.updatedAt.getTime();
    const kept = this.builtFrom.get(id) === stamp ? this.byId.get(id) : undefined;
    if (kept) return { id, stamp, entry: kept };
    const failedBefore = this.failed.get(id);
    if (failedBefore?.stamp === stamp) return { id, stamp, error: failedBefore.error };
    const faults = providerLoadFaults(provider, {
      interpreterNames: this.options.interpreterNames ?? [provider.interpreter],
      environmentRedirectUris: this.environment?.rules.redirectUris ?? [],
    });
    if (faults.length > 0) return { id, stamp, error: new ProviderLoadError(id, faults.join('; ')) };
    try {
      const parts = await withinTime(
        this.build(provider),
        this.options.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
        id,
      );
      return { id, stamp, entry: { rules: rulesOf(provider), parts } };
    } catch (error) {
      return { id, stamp, error: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  /** Tells the observer what started failing (once per row version) and what stopped. */
  private report(failed: ReadonlyMap<string, { stamp: number; error: Error }>): void {
    const observer = this.options.observer;
    if (!observer) return;
    for (const [id, failure] of failed) {
      if (this.failed.get(id)?.stamp !== failure.stamp) observer.failed(id, failure.error.message);
    }
    for (const id of this.failed.keys()) if (!failed.has(id)) observer.recovered(id);
  }
}

/** `work`, or a ProviderLoadError once `ms` passed: a factory that never settles is abandoned. */
function withinTime<T>(work: Promise<T>, ms: number, providerId: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ProviderLoadError(
            providerId,
            `its adapters were not built within ${ms} ms (its interpreter module or factory did not settle)`,
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
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
    requireMfa: provider.requireMfa,
    acrValues: provider.acrValues,
  };
}
