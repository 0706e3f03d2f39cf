/**
 * Per-customer providers for the benchmark: registered through the service's own registry adapter
 * (what `gatehouse provider add` calls), one real provider and any number of customers whose
 * issuers are never contacted, each with its own tenant, client, secret and redirect URI.
 */
import { AesTokenSealer } from '../../src/adapters/crypto/aes-token-sealer.js';
import { PgSqlClient } from '../../src/adapters/sql/pg-sql-client.js';
import { SqlProviderRegistry } from '../../src/adapters/sql/sql-provider-registry.js';
import { SqlDirectoryRepository } from '../../src/adapters/sql/sql-user-repository.js';
import type { ProviderSecrets, ProviderSettings } from '../../src/domain/sso/provider-registration.js';
import { DEFAULT_REDIRECT_URI } from '../../test/support/oidc/test-provider.js';
import { pooled } from './load.js';
import { BENCH_TENANT } from './seed.js';
import type { BenchProvider } from './sso.js';

/** Registry writes as the operator's commands make them. */
export const BY_BENCH = () => ({ now: new Date(), actor: 'administrator' }) as const;

/** The measured provider's id: the real local one, registered in every variant. */
export const REAL_PROVIDER_ID = 'customer-real';

export const customerId = (index: number) => `customer-${String(index).padStart(5, '0')}`;

export interface BenchRegistry {
  registry: SqlProviderRegistry;
  directory: SqlDirectoryRepository;
  close(): Promise<void>;
}

export function openBenchRegistry(databaseUrl: string, key: string): BenchRegistry {
  const client = new PgSqlClient({
    connectionString: databaseUrl,
    poolSize: 4,
    connectionTimeoutMs: 5000,
    statementTimeoutMs: 30_000,
  });
  return {
    registry: new SqlProviderRegistry(client, AesTokenSealer.fromBase64(key, [])),
    directory: new SqlDirectoryRepository(client),
    close: () => client.pool.end(),
  };
}

/** The real local provider as a customer of the bench tenant, logging in through `redirectUri`. */
export function realProviderSettings(
  bench: BenchProvider,
  id: string,
  redirectUri: string = DEFAULT_REDIRECT_URI,
): { settings: ProviderSettings; secrets: ProviderSecrets } {
  const client = bench.provider.clients.gatehouse;
  return {
    settings: {
      id,
      issuer: bench.provider.issuer,
      clientId: client.clientId,
      clientAuth: 'client_secret_basic',
      redirectUris: [redirectUri],
      tenants: [BENCH_TENANT],
      interpreter: 'claims',
      levels: [8],
      requirePkce: false,
      idTokenAlg: 'RS256',
      requireMfa: false,
      acrValues: [],
      enabled: true,
    },
    secrets: { clientSecret: client.clientSecret!, settings: {} },
  };
}

/** A customer whose issuer is never contacted: only its registration and its adapters cost anything. */
function idleCustomer(index: number): { settings: ProviderSettings; secrets: ProviderSecrets } {
  const id = customerId(index);
  return {
    settings: {
      id,
      issuer: `https://${id}.idp.invalid/`,
      clientId: `gatehouse-${id}`,
      clientAuth: 'client_secret_basic',
      redirectUris: [`https://portal.example.com/sso/callback?customer=${id}`],
      tenants: [`t-${id}`],
      interpreter: 'claims',
      levels: [8],
      requirePkce: true,
      idTokenAlg: 'RS256',
      requireMfa: false,
      acrValues: [],
      enabled: true,
    },
    secrets: { clientSecret: `secret-${id}-${index * 7919}`, settings: {} },
  };
}

async function added(
  registry: SqlProviderRegistry,
  provider: { settings: ProviderSettings; secrets: ProviderSecrets },
): Promise<void> {
  const result = await registry.add(provider.settings, provider.secrets, BY_BENCH());
  if (!result.ok)
    throw new Error(`provider ${provider.settings.id} refused: ${JSON.stringify(result.refusal)}`);
}

/**
 * Registers the real provider and `idle` customers beside it (each with a tenant of its own), 4
 * writes at a time. Returns the time it took, in ms.
 */
export async function registerCustomers(
  bench: BenchProvider,
  target: BenchRegistry,
  idle: number,
): Promise<number> {
  const started = performance.now();
  await added(target.registry, realProviderSettings(bench, REAL_PROVIDER_ID));
  await pooled(idle, 4, async (index) => {
    const customer = idleCustomer(index + 1);
    await target.directory.addTenant(customer.settings.tenants[0]!, null);
    await added(target.registry, customer);
  });
  return Math.round(performance.now() - started);
}
