import { type AuditEventName, auditEvent } from '../../domain/audit/audit-event.js';
import type {
  ClientAuthMethod,
  IdTokenAlgorithm,
  ProviderSecrets,
  ProviderSettings,
  RegisteredProvider,
} from '../../domain/sso/provider-registration.js';
import type {
  ProviderChange,
  ProviderRegistry,
  RegistryRefusal,
  RegistryWrite,
  RegistryWriteContext,
} from '../../domain/sso/provider-registry.port.js';
import type { TokenSealer } from '../../domain/sso/token-sealer.port.js';
import { SqlAuditLog } from './sql-audit-log.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';
import { sqlErrorCode, translateStoreError } from './store-errors.js';

interface ProviderRow {
  id: string;
  issuer: string;
  client_id: string;
  client_auth: string;
  interpreter: string;
  username_claim: string | null;
  group_claim: string | null;
  levels: number[];
  require_pkce: boolean;
  id_token_alg: string;
  require_mfa: boolean;
  acr_values: string[];
  enabled: boolean;
  sealed_secrets: string;
  created_at: Date;
  updated_at: Date;
  enabled_since: Date;
  redirect_uris: string[] | null;
  tenants: string[] | null;
}

const SELECT_PROVIDERS = `
  SELECT p.*,
    (SELECT array_agg(r.uri ORDER BY r.position) FROM sso_provider_redirect_uris r WHERE r.provider_id = p.id) AS redirect_uris,
    (SELECT array_agg(t.tenant_id ORDER BY t.tenant_id) FROM sso_provider_tenants t WHERE t.provider_id = p.id) AS tenants
  FROM sso_providers p`;

/** The secrets of one provider open only under its own id: a sealed value moved to another row opens to nothing. */
function secretsBinding(id: string): string {
  return JSON.stringify(['gatehouse provider secrets', id]);
}

/**
 * The setting columns and where each value comes from, in one table that both the insert and the
 * update are written from (parameters $2 onwards, after the id): a column added here is added to
 * both, so the two cannot drift apart.
 */
const SETTING_COLUMNS: ReadonlyArray<
  readonly [column: string, value: (settings: ProviderSettings) => unknown]
> = [
  ['issuer', (settings) => settings.issuer],
  ['client_id', (settings) => settings.clientId],
  ['client_auth', (settings) => settings.clientAuth],
  ['interpreter', (settings) => settings.interpreter],
  ['username_claim', (settings) => settings.usernameClaim ?? null],
  ['group_claim', (settings) => settings.groupClaim ?? null],
  ['levels', (settings) => settings.levels],
  ['require_pkce', (settings) => settings.requirePkce],
  ['id_token_alg', (settings) => settings.idTokenAlg],
  ['require_mfa', (settings) => settings.requireMfa],
  ['acr_values', (settings) => [...settings.acrValues]],
];

/** The setting columns' values, in `SETTING_COLUMNS`' order. */
function settingValues(settings: ProviderSettings): unknown[] {
  return SETTING_COLUMNS.map(([, value]) => value(settings));
}

/** `$first`, `$first+1`, ... for `count` parameters. */
function parameters(first: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `$${first + i}`);
}

const SETTINGS_COUNT = SETTING_COLUMNS.length;
/** The parameter of the first column after the settings (the id is $1, the settings $2...). */
const AFTER_SETTINGS = 2 + SETTINGS_COUNT;

const INSERT_PROVIDER = `INSERT INTO sso_providers (id, ${SETTING_COLUMNS.map(([column]) => column).join(', ')},
    enabled, sealed_secrets, created_at, updated_at, enabled_since)
  VALUES ($1, ${parameters(2, SETTINGS_COUNT).join(', ')}, ${parameters(AFTER_SETTINGS, 3).join(', ')},
    $${AFTER_SETTINGS + 2}, $${AFTER_SETTINGS + 2})`;

const UPDATE_PROVIDER = `UPDATE sso_providers SET ${SETTING_COLUMNS.map(([column], i) => `${column} = $${2 + i}`).join(', ')},
    sealed_secrets = $${AFTER_SETTINGS}, updated_at = $${AFTER_SETTINGS + 1}
  WHERE id = $1`;

/** The options a change names: a key present with `undefined` changes nothing. */
function givenOnly<T extends object>(change: T): Partial<T> {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) as Partial<T>;
}

class Refused extends Error {
  constructor(readonly refusal: RegistryRefusal) {
    super(refusal.kind);
  }
}

/** `sso_providers` and its two lists, every write one transaction that also moves the version on. */
export class SqlProviderRegistry implements ProviderRegistry {
  constructor(
    private readonly sql: SqlClient,
    private readonly sealer: TokenSealer,
  ) {}

  add(
    settings: ProviderSettings,
    secrets: ProviderSecrets,
    { now, actor }: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>> {
    return this.write({ event: 'provider_added', id: settings.id, now, actor }, async (tx) => {
      const taken = await tx.query('SELECT 1 FROM sso_providers WHERE id = $1', [settings.id]);
      if (taken.rowCount > 0) throw new Refused({ kind: 'id-taken', id: settings.id });
      await tx.query(INSERT_PROVIDER, [
        settings.id,
        ...settingValues(settings),
        settings.enabled,
        this.seal(settings.id, secrets),
        now,
      ]);
      await this.writeLists(tx, settings.id, settings.redirectUris, settings.tenants);
      return this.load(tx, settings.id);
    });
  }

  update(
    id: string,
    change: ProviderChange,
    { now, actor }: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>> {
    return this.write({ event: 'provider_updated', id, now, actor }, async (tx) => {
      const current = await this.lockedOrRefused(tx, id);
      // Kept secrets are merged with the new ones: without the key that sealed them, they would
      // be lost, so the update waits for the right key.
      if (current.secrets === null) throw new Refused({ kind: 'secrets-unreadable', id });
      const settings: ProviderSettings = {
        ...current,
        ...givenOnly(change.settings),
        id,
        enabled: current.enabled,
      };
      const secrets: ProviderSecrets = {
        ...current.secrets,
        ...givenOnly(change.secrets ?? {}),
        settings: { ...current.secrets.settings, ...change.secrets?.settings },
      };
      await tx.query(UPDATE_PROVIDER, [id, ...settingValues(settings), this.seal(id, secrets), now]);
      if (change.settings.redirectUris || change.settings.tenants) {
        await tx.query('DELETE FROM sso_provider_redirect_uris WHERE provider_id = $1', [id]);
        await tx.query('DELETE FROM sso_provider_tenants WHERE provider_id = $1', [id]);
        await this.writeLists(tx, id, settings.redirectUris, settings.tenants);
      }
      return this.load(tx, id);
    });
  }

  setEnabled(
    id: string,
    enabled: boolean,
    { now, actor }: RegistryWriteContext,
  ): Promise<RegistryWrite<RegisteredProvider>> {
    const event = enabled ? 'provider_enabled' : 'provider_disabled';
    return this.write({ event, id, now, actor }, async (tx) => {
      const current = await this.lockedOrRefused(tx, id);
      // Enabled again after a disable: sessions made before now stay ended (`enabledSince`).
      // Enabling an enabled provider changes nothing of its sessions.
      const enabledSince = enabled && !current.enabled ? now : current.enabledSince;
      await tx.query(
        'UPDATE sso_providers SET enabled = $2, updated_at = $3, enabled_since = $4 WHERE id = $1',
        [id, enabled, now, enabledSince],
      );
      return this.load(tx, id);
    });
  }

  remove(id: string, { now, actor }: RegistryWriteContext): Promise<RegistryWrite<null>> {
    return this.write({ event: 'provider_removed', id, now, actor }, async (tx) => {
      const current = await this.lockedOrRefused(tx, id);
      if (current.enabled) throw new Refused({ kind: 'still-enabled', id });
      await tx.query('DELETE FROM sso_providers WHERE id = $1', [id]);
      // Its users' bindings go with it: an id registered again later is a new customer's provider,
      // and must not inherit the accounts bound through the old one.
      await tx.query(
        'UPDATE users SET sso_provider = NULL, sso_issuer = NULL, sso_subject = NULL WHERE sso_provider = $1',
        [id],
      );
      return null;
    });
  }

  async find(id: string): Promise<RegisteredProvider | null> {
    try {
      const { rows } = await this.sql.query<ProviderRow>(`${SELECT_PROVIDERS} WHERE p.id = $1`, [id]);
      return rows[0] ? this.fromRow(rows[0]) : null;
    } catch (error) {
      return translateStoreError(error);
    }
  }

  async list(): Promise<RegisteredProvider[]> {
    try {
      const { rows } = await this.sql.query<ProviderRow>(`${SELECT_PROVIDERS} ORDER BY p.id`);
      return rows.map((row) => this.fromRow(row));
    } catch (error) {
      return translateStoreError(error);
    }
  }

  async version(): Promise<bigint> {
    try {
      const { rows } = await this.sql.query<{ version: string }>(
        'SELECT version::text AS version FROM sso_provider_registry_version',
        [],
        'provider_registry_version',
      );
      return BigInt(rows[0]?.version ?? '0');
    } catch (error) {
      return translateStoreError(error);
    }
  }

  /** One transaction: the work, its audit record, the version moved on; a refusal rolls everything back. */
  private async write<T>(
    audit: { event: AuditEventName; id: string } & RegistryWriteContext,
    work: (tx: SqlExecutor) => Promise<T>,
  ): Promise<RegistryWrite<T>> {
    try {
      const value = await this.sql.transaction(async (tx) => {
        const result = await work(tx);
        await new SqlAuditLog(tx).record(
          auditEvent({ occurredAt: audit.now, event: audit.event, actor: audit.actor, providerId: audit.id }),
        );
        await tx.query(
          `INSERT INTO sso_provider_registry_version (singleton, version) VALUES (true, 1)
           ON CONFLICT (singleton) DO UPDATE SET version = sso_provider_registry_version.version + 1`,
        );
        return result;
      });
      return { ok: true, value };
    } catch (error) {
      if (error instanceof Refused) return { ok: false, refusal: error.refusal };
      // A concurrent writer took the id or a redirect URI between our check and our insert.
      if (sqlErrorCode(error) === '23505') return this.conflictAfterTheFact(error);
      return translateStoreError(error);
    }
  }

  private async conflictAfterTheFact(error: unknown): Promise<RegistryWrite<never>> {
    const constraint = (error as { constraint?: string }).constraint ?? '';
    const detail = String((error as { detail?: string }).detail ?? '');
    const value = /\)=\((.*)\) already exists/.exec(detail)?.[1] ?? '';
    if (constraint.startsWith('sso_provider_redirect_uris')) {
      const owner = await this.sql.query<{ provider_id: string }>(
        'SELECT provider_id FROM sso_provider_redirect_uris WHERE uri = $1',
        [value],
      );
      return {
        ok: false,
        refusal: { kind: 'redirect-uri-taken', uri: value, by: owner.rows[0]?.provider_id ?? '?' },
      };
    }
    return { ok: false, refusal: { kind: 'id-taken', id: value } };
  }

  private async writeLists(
    tx: SqlExecutor,
    id: string,
    redirectUris: readonly string[],
    tenants: readonly string[],
  ): Promise<void> {
    const owners = await tx.query<{ uri: string; provider_id: string }>(
      'SELECT uri, provider_id FROM sso_provider_redirect_uris WHERE uri = ANY($1::text[]) AND provider_id <> $2',
      [redirectUris, id],
    );
    const first = owners.rows[0];
    if (first) throw new Refused({ kind: 'redirect-uri-taken', uri: first.uri, by: first.provider_id });
    const known = await tx.query<{ id: string }>('SELECT id FROM tenants WHERE id = ANY($1::text[])', [
      tenants,
    ]);
    const knownIds = new Set(known.rows.map((row) => row.id));
    const unknown = tenants.find((tenant) => !knownIds.has(tenant));
    if (unknown !== undefined) throw new Refused({ kind: 'unknown-tenant', tenant: unknown });
    await tx.query(
      `INSERT INTO sso_provider_redirect_uris (uri, provider_id, position)
       SELECT uri, $1, ordinality FROM unnest($2::text[]) WITH ORDINALITY AS u(uri, ordinality)`,
      [id, redirectUris],
    );
    await tx.query(
      'INSERT INTO sso_provider_tenants (provider_id, tenant_id) SELECT $1, unnest($2::text[])',
      [id, tenants],
    );
  }

  private async lockedOrRefused(tx: SqlExecutor, id: string): Promise<RegisteredProvider> {
    const { rows } = await tx.query<ProviderRow>(`${SELECT_PROVIDERS} WHERE p.id = $1 FOR UPDATE OF p`, [id]);
    if (!rows[0]) throw new Refused({ kind: 'not-found', id });
    return this.fromRow(rows[0]);
  }

  private async load(tx: SqlExecutor, id: string): Promise<RegisteredProvider> {
    const { rows } = await tx.query<ProviderRow>(`${SELECT_PROVIDERS} WHERE p.id = $1`, [id]);
    return this.fromRow(rows[0]!);
  }

  private seal(id: string, secrets: ProviderSecrets): string {
    return this.sealer.seal(JSON.stringify(secrets), secretsBinding(id));
  }

  /**
   * A row whose secrets do not open (sealed under another key, or moved from another row) is
   * returned with `secrets: null`: one such row must not hide the others from a listing.
   */
  private fromRow(row: ProviderRow): RegisteredProvider {
    const opened = this.sealer.open(row.sealed_secrets, secretsBinding(row.id));
    const secrets = opened === null ? null : (JSON.parse(opened) as ProviderSecrets);
    return {
      id: row.id,
      issuer: row.issuer,
      clientId: row.client_id,
      clientAuth: row.client_auth as ClientAuthMethod,
      redirectUris: row.redirect_uris ?? [],
      tenants: row.tenants ?? [],
      interpreter: row.interpreter,
      ...(row.username_claim === null ? {} : { usernameClaim: row.username_claim }),
      ...(row.group_claim === null ? {} : { groupClaim: row.group_claim }),
      levels: row.levels.map(Number),
      requirePkce: row.require_pkce,
      idTokenAlg: row.id_token_alg as IdTokenAlgorithm,
      requireMfa: row.require_mfa,
      acrValues: row.acr_values ?? [],
      enabled: row.enabled,
      secrets: secrets === null ? null : { ...secrets, settings: secrets.settings ?? {} },
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
      enabledSince: new Date(row.enabled_since),
    };
  }
}
