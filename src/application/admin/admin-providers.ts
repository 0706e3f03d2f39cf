import { ssoAdmits } from '../../domain/login/login-policy.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import {
  type ProviderSecrets,
  type ProviderSettings,
  type ProviderSummary,
  type RegisteredProvider,
  registrationFaults,
  summarizeProvider,
} from '../../domain/sso/provider-registration.js';
import type {
  ProviderChange,
  ProviderRegistry,
  RegistryRefusal,
  RegistryWrite,
} from '../../domain/sso/provider-registry.port.js';
import type { SessionEnding } from '../session-ending.js';
import { type ProviderLoadingRules, providerLoadFaults } from '../sso/provider-load-faults.js';
import { conflict, invalid, notFound } from './directory-writes.js';

/**
 * What the deployment decides for every registered provider (contract 6a, section 7): the
 * interpreter names it allows and the redirect URIs its environment's provider holds, and:
 */
export interface ProviderAdministrationRules extends ProviderLoadingRules {
  /** Whether sealed secrets can be kept: TOKEN_ENCRYPTION_KEY is set. */
  canSealSecrets: boolean;
}

function refused(refusal: RegistryRefusal): DomainError {
  switch (refusal.kind) {
    case 'id-taken':
      return conflict('id', `a provider ${JSON.stringify(refusal.id)} exists`);
    case 'redirect-uri-taken':
      return conflict('redirect-uri', `${refusal.uri} belongs to provider ${JSON.stringify(refusal.by)}`);
    case 'unknown-tenant':
      return invalid('tenant', `no tenant ${JSON.stringify(refusal.tenant)}`);
    case 'not-found':
      return notFound(`no provider ${JSON.stringify(refusal.id)}`);
    case 'still-enabled':
      return invalid('id', `provider ${JSON.stringify(refusal.id)} is enabled: disable it first`);
    case 'secrets-unreadable':
      return secretsUnreadable(refusal.id);
  }
}

function secretsUnreadable(id: string): DomainError {
  return invalid(
    'TOKEN_ENCRYPTION_KEY',
    `the secrets of provider ${JSON.stringify(id)} do not open with it (sealed under another key): ` +
      'update it with the key that sealed them, or remove it and add it again',
  );
}

/** A provider as the command shows it, with why this process could not load it (none: it can). */
export interface ProviderView extends ProviderSummary {
  loadFaults: readonly string[];
}

function settled<T>(write: RegistryWrite<T>): T {
  if (!write.ok) throw refused(write.refusal);
  return write.value;
}

/** A registry change and the SSO sessions it ended (counted as deleted, on the session store). */
export interface ProviderChangeResult {
  provider: ProviderSummary;
  sessionsEnded: number;
}

/**
 * `gatehouse provider ...`: registers, changes and offboards customers' OpenID providers. Each
 * registration is checked whole (every fault named by its option) before anything is written;
 * what only the store can decide (a taken id or redirect URI, an unknown tenant) is refused by it
 * in the same transaction as the write.
 *
 * Offboarding ends sessions for real, through `SessionEnding`, in an order a crash between the two
 * steps cannot turn against the customer: the registry first stops the logins (`disable`, and a
 * narrowing `update`), then the sessions end; `remove` ends them before it forgets the bindings
 * that find them. A failure to end them fails the command (the provider stays disabled, and the
 * command can be run again); sessions it could not reach are refused when presented, and never
 * revive on `enable` or a new `add` (`RegisteredProvider.enabledSince`).
 */
export class AdminProviders {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly rules: ProviderAdministrationRules,
    private readonly clock: Clock,
    private readonly ending: SessionEnding,
  ) {}

  async add(settings: Omit<ProviderSettings, 'enabled'>, secrets: ProviderSecrets): Promise<ProviderSummary> {
    const whole: ProviderSettings = { ...settings, enabled: true };
    this.assertAcceptable(whole, secrets);
    return summarizeProvider(settled(await this.registry.add(whole, secrets, this.byAdministrator())));
  }

  /**
   * Changes the options given. Narrowing the tenants or the levels ends, through this provider,
   * the sessions of the users it no longer admits (after the change is written: no new ones).
   */
  async update(id: string, change: ProviderChange): Promise<ProviderChangeResult> {
    const current = await this.registry.find(id);
    if (!current) throw notFound(`no provider ${JSON.stringify(id)}`);
    if (current.secrets === null) throw secretsUnreadable(id);
    const givenSettings = Object.fromEntries(
      Object.entries(change.settings).filter(([, value]) => value !== undefined),
    ) as Partial<ProviderSettings>;
    const next: ProviderSettings = { ...current, ...givenSettings, id, enabled: current.enabled };
    const nextSecrets: ProviderSecrets = {
      ...current.secrets,
      ...change.secrets,
      settings: { ...current.secrets.settings, ...change.secrets?.settings },
    };
    this.assertAcceptable(next, nextSecrets);
    const updated = settled(await this.registry.update(id, change, this.byAdministrator()));
    const narrowing = change.settings.tenants !== undefined || change.settings.levels !== undefined;
    const sessionsEnded = narrowing
      ? await this.ending.unit((_, end) =>
          end.throughProvider(id, { reason: 'provider_narrowed' }, (user) => !ssoAdmits(user, updated)),
        )
      : 0;
    return { provider: summarizeProvider(updated), sessionsEnded };
  }

  async list(): Promise<ProviderView[]> {
    return (await this.registry.list()).map((provider) => this.view(provider));
  }

  async show(id: string): Promise<ProviderView> {
    const provider = await this.registry.find(id);
    if (!provider) throw notFound(`no provider ${JSON.stringify(id)}`);
    return this.view(provider);
  }

  private view(provider: RegisteredProvider): ProviderView {
    return { ...summarizeProvider(provider), loadFaults: providerLoadFaults(provider, this.rules) };
  }

  /**
   * Stops new logins through the provider, then ends its live sessions (never-presented ones
   * included). Run again, it ends what a failed run left.
   */
  async disable(id: string): Promise<ProviderChangeResult> {
    const provider = settled(await this.registry.setEnabled(id, false, this.byAdministrator()));
    return { provider: summarizeProvider(provider), sessionsEnded: await this.endSessionsThrough(id) };
  }

  /** Restores logins; sessions made before now stay ended. */
  async enable(id: string): Promise<ProviderSummary> {
    return summarizeProvider(settled(await this.registry.setEnabled(id, true, this.byAdministrator())));
  }

  /**
   * Deletes a disabled provider and forgets its users' bindings; its sessions end first, while the
   * bindings still find them. Returns how many ended.
   */
  async remove(id: string): Promise<{ sessionsEnded: number }> {
    const current = await this.registry.find(id);
    if (!current) throw refused({ kind: 'not-found', id });
    if (current.enabled) throw refused({ kind: 'still-enabled', id });
    const sessionsEnded = await this.endSessionsThrough(id);
    settled(await this.registry.remove(id, this.byAdministrator()));
    return { sessionsEnded };
  }

  private endSessionsThrough(id: string): Promise<number> {
    return this.ending.unit((_, end) => end.throughProvider(id, { reason: 'provider_disabled' }));
  }

  private byAdministrator() {
    return { now: this.clock.now(), actor: 'administrator' as const };
  }

  private assertAcceptable(settings: ProviderSettings, secrets: ProviderSecrets): void {
    if (!this.rules.canSealSecrets) {
      throw invalid(
        'TOKEN_ENCRYPTION_KEY',
        "must be set: a registered provider's secrets are kept encrypted with it",
      );
    }
    const faults = registrationFaults(settings, secrets);
    if (
      !this.rules.interpreterNames.includes(settings.interpreter) &&
      faults.every((f) => f.path !== 'interpreter')
    ) {
      faults.push({
        path: 'interpreter',
        message: `${JSON.stringify(settings.interpreter)} is not allowed: name one of SSO_INTERPRETERS (${this.rules.interpreterNames.join(', ')})`,
      });
    }
    for (const uri of settings.redirectUris) {
      if (this.rules.environmentRedirectUris.includes(uri)) {
        faults.push({
          path: 'redirect-uri',
          message: `${uri} belongs to the environment's provider (OIDC_REDIRECT_URIS)`,
        });
      }
    }
    const [first] = faults;
    if (first) {
      throw new DomainError('INVALID_REQUEST', `${first.path}: ${first.message}`, { errors: faults });
    }
  }
}
