import type { AuditActor } from '../audit/audit-event.js';
import type { ProviderSecrets, ProviderSettings, RegisteredProvider } from './provider-registration.js';

/** Why a registry write was refused; the caller names the option at fault. */
export type RegistryRefusal =
  | { kind: 'id-taken'; id: string }
  | { kind: 'redirect-uri-taken'; uri: string; by: string }
  | { kind: 'unknown-tenant'; tenant: string }
  | { kind: 'not-found'; id: string }
  | { kind: 'still-enabled'; id: string }
  /** An update of a provider whose secrets do not open with this process's key. */
  | { kind: 'secrets-unreadable'; id: string };

export type RegistryWrite<T> = { ok: true; value: T } | { ok: false; refusal: RegistryRefusal };

/** Only the options given change; a secret is kept unless a new one is given. */
export interface ProviderChange {
  settings: Partial<Omit<ProviderSettings, 'id' | 'enabled'>>;
  secrets?: Partial<ProviderSecrets>;
}

/** When a write happens and who made it: the audit record the write leaves. */
export interface RegistryWriteContext {
  now: Date;
  actor: AuditActor;
}

/**
 * The customers' OpenID providers, kept where every instance reads them. Each write is whole or
 * not at all, records its audit event (`provider_added`, ...) in the same unit of work, and
 * moves `version` on, so an instance that polls the version learns of every change without
 * reading the whole registry.
 */
export interface ProviderRegistry {
  add(
    settings: ProviderSettings,
    secrets: ProviderSecrets,
    context: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>>;
  update(
    id: string,
    change: ProviderChange,
    context: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>>;
  setEnabled(
    id: string,
    enabled: boolean,
    context: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>>;
  /** Deletes a disabled provider; an enabled one is refused (`still-enabled`). */
  remove(id: string, context: RegistryWriteContext): Promise<RegistryWrite<null>>;
  /** A provider whose secrets do not open is returned with `secrets: null`, never an error. */
  find(id: string): Promise<RegisteredProvider | null>;
  /** Every provider, by id; one whose secrets do not open has `secrets: null` (the others unharmed). */
  list(): Promise<RegisteredProvider[]>;
  /** A number that changes with every write (for change detection; not a count). */
  version(): Promise<bigint>;
}
