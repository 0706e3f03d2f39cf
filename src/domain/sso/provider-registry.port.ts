import type { ProviderSecrets, ProviderSettings, RegisteredProvider } from './provider-registration.js';

/** Why a registry write was refused; the caller names the option at fault. */
export type RegistryRefusal =
  | { kind: 'id-taken'; id: string }
  | { kind: 'redirect-uri-taken'; uri: string; by: string }
  | { kind: 'unknown-tenant'; tenant: string }
  | { kind: 'not-found'; id: string }
  | { kind: 'still-enabled'; id: string };

export type RegistryWrite<T> = { ok: true; value: T } | { ok: false; refusal: RegistryRefusal };

/** Only the options given change; a secret is kept unless a new one is given. */
export interface ProviderChange {
  settings: Partial<Omit<ProviderSettings, 'id' | 'enabled'>>;
  secrets?: Partial<ProviderSecrets>;
}

/**
 * The customers' OpenID providers, kept where every instance reads them. Each write is whole or
 * not at all, and moves `version` on, so an instance that polls the version learns of every
 * change without reading the whole registry.
 */
export interface ProviderRegistry {
  add(
    settings: ProviderSettings,
    secrets: ProviderSecrets,
    now: Date,
  ): Promise<RegistryWrite<RegisteredProvider>>;
  update(id: string, change: ProviderChange, now: Date): Promise<RegistryWrite<RegisteredProvider>>;
  setEnabled(id: string, enabled: boolean, now: Date): Promise<RegistryWrite<RegisteredProvider>>;
  /** Deletes a disabled provider; an enabled one is refused (`still-enabled`). */
  remove(id: string): Promise<RegistryWrite<null>>;
  find(id: string): Promise<RegisteredProvider | null>;
  /** Every provider, by id. */
  list(): Promise<RegisteredProvider[]>;
  /** A number that changes with every write (for change detection; not a count). */
  version(): Promise<bigint>;
}
