/**
 * Fresh, isolated, migrated databases for tests, on both stores:
 * - PGlite: restored from the template built by test/support/global-setup.ts (~0.6 s a call);
 * - PostgreSQL (when TEST_DATABASE_URL is set): a new schema per call, dropped on close().
 *
 * Suites registered with `forEachStore` are named "<suite> [pglite]" and "<suite> [postgres]"; CI
 * greps the JSON report for passed tests whose full name contains "[postgres]".
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, inject } from 'vitest';
import { loadMigrations, type Migration, migrate } from '../../src/adapters/sql/migrator.js';
import { PgSqlClient } from '../../src/adapters/sql/pg-sql-client.js';
import { PgliteSqlClient } from '../../src/adapters/sql/pglite-sql-client.js';
import { SqlAuditLog } from '../../src/adapters/sql/sql-audit-log.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlSeenLogoutTokens } from '../../src/adapters/sql/sql-seen-logout-tokens.js';
import { SqlServiceSecrets } from '../../src/adapters/sql/sql-service-secrets.js';
import { SqlSessionLookup } from '../../src/adapters/sql/sql-session-lookup.js';
import { SqlSessionStore } from '../../src/adapters/sql/sql-session-store.js';
import { SqlThrottleStore } from '../../src/adapters/sql/sql-throttle-store.js';
import { SqlDirectoryRepository, SqlUserRepository } from '../../src/adapters/sql/sql-user-repository.js';
import { projectRoot } from '../../src/boot/project-root.js';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from './global-setup.js';

export type StoreKind = 'pglite' | 'postgres';
export const STORES: readonly StoreKind[] = ['pglite', 'postgres'];

/** Where a test service keeps its sessions: the SQL stores, Redis (one server or the run's cluster), its memory. */
export type SessionStoreKind = StoreKind | 'redis' | 'redis-cluster' | 'memory';
/** Which framework serves the API (HTTP_TRANSPORT). */
export type TransportKind = 'koa' | 'fastify';

/** A test service: two separate axes, where sessions live and which transport serves. */
export interface ServiceTarget {
  store: SessionStoreKind;
  transport: TransportKind;
}

/**
 * The targets the suites run on, by the name their suites carry (`[postgres]`, `[fastify]`...: CI
 * and the reports go by these names, so they stay). Each name is one point of the two axes; a
 * target on another transport is one more entry here, not a new kind of store.
 */
export const TARGETS = {
  pglite: { store: 'pglite', transport: 'koa' },
  postgres: { store: 'postgres', transport: 'koa' },
  redis: { store: 'redis', transport: 'koa' },
  'redis-cluster': { store: 'redis-cluster', transport: 'koa' },
  memory: { store: 'memory', transport: 'koa' },
  fastify: { store: 'pglite', transport: 'fastify' },
} as const satisfies Record<string, ServiceTarget>;

/** A target's name (its suites' `[name]`). */
export type ServiceStoreKind = keyof typeof TARGETS;

/**
 * GATEHOUSE_TEST_MATRIX=lean (CI's second run, on Node 24): the store-parametrised HTTP suites run
 * once (PGlite on Koa); their PostgreSQL, Redis and Fastify repeats, which test the stores and the
 * transport and not the runtime, stay with the first run. The suites about HTTP alone still run on
 * both transports (TRANSPORT_TARGETS), and the stores' contract suites on every store.
 */
export const LEAN_MATRIX = process.env.GATEHOUSE_TEST_MATRIX === 'lean';
const LEAN = LEAN_MATRIX;
/** The PostgreSQL suites run only when TEST_DATABASE_URL is set (CI sets it). */
export const pgEnabled = Boolean(process.env.TEST_DATABASE_URL);
/**
 * The store-parametrised HTTP suites meet every store once and every transport: SQL on Koa
 * (PostgreSQL when there is one, else PGlite), Redis on Koa, PGlite on Fastify. PGlite on Koa
 * beside those would meet no new code: the SQL adapters are the same on both engines, and their
 * contract suites run on both.
 */
export const SERVICE_STORES: readonly ServiceStoreKind[] = LEAN
  ? ['pglite']
  : [pgEnabled ? 'postgres' : 'pglite', 'redis', 'fastify'];
/** The suites at the heart of the session guarantees run on the run's Redis Cluster as well. */
export const ALL_SERVICE_STORES: readonly ServiceStoreKind[] = LEAN
  ? SERVICE_STORES
  : [...SERVICE_STORES, 'redis-cluster'];
/**
 * For suites about one service process: the stores above and the in-memory session store
 * (SESSION_STORE=memory, users on PGlite). Not for two instances sharing a store: memory is per process.
 */
export const ONE_PROCESS_STORES: readonly ServiceStoreKind[] = LEAN
  ? SERVICE_STORES
  : [...SERVICE_STORES, 'memory'];

/** The run's Redis Cluster seed nodes (test/support/global-setup.ts), `host:port,...`. */
export function testRedisClusterNodes(): string {
  const nodes = inject('redisClusterNodes');
  if (!nodes) throw new Error('no Redis Cluster: the global setup did not run');
  return nodes;
}

/** The run's redis-server (test/support/global-setup.ts). */
export function testRedisUrl(): string {
  const url = inject('redisUrl');
  if (!url) throw new Error('no redis-server: the global setup did not run');
  return url;
}

export interface OpenOptions {
  /** Apply every migration (default true). False gives an empty database. */
  migrated?: boolean;
}

let migrationsCache: Migration[] | undefined;

/** The project's migrations, read once per test file. */
export function testMigrations(): Migration[] {
  migrationsCache ??= loadMigrations(join(projectRoot(), 'migrations'));
  return migrationsCache;
}

// ---------------------------------------------------------------------------------------------
// PGlite

const templateBytes = new Map<string, Promise<Uint8Array>>();

function providedPath(key: 'pgliteTemplatePath' | 'pgliteEmptyTemplatePath'): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    return undefined;
  }
}

/** A fresh in-memory PGlite, migrated unless `migrated: false`; isolated from every other call. */
export async function openTestPglite(options: OpenOptions = {}): Promise<PgliteSqlClient> {
  const migrated = options.migrated ?? true;
  const path = providedPath(migrated ? 'pgliteTemplatePath' : 'pgliteEmptyTemplatePath');
  if (!path) {
    // Without the global setup (e.g. a custom config): the slow way.
    const client = await PgliteSqlClient.open();
    if (migrated) await migrate(client, testMigrations());
    return client;
  }
  let bytes = templateBytes.get(path);
  if (!bytes) {
    bytes = readFile(path).then((buffer) => new Uint8Array(buffer));
    templateBytes.set(path, bytes);
  }
  return PgliteSqlClient.open(undefined, {
    loadDataDir: new Blob([await bytes], { type: 'application/x-tar' }),
  });
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

function requireDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set; guard PostgreSQL tests with pgEnabled.');
  return url;
}

/** The connection string with `search_path` set to `schema` for every connection. */
export function schemaConnectionString(baseUrl: string, schema: string): string {
  const url = new URL(baseUrl);
  const existing = url.searchParams.get('options');
  url.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${schema}`);
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: requireDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A plain PgSqlClient on a connection string (e.g. a second pool on a test schema). */
export function connectPostgres(connectionString: string, poolSize = 10): PgSqlClient {
  return new PgSqlClient({
    connectionString,
    poolSize,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 20_000,
  });
}

/** A PgSqlClient confined to its own schema; close() ends the pool and drops the schema. */
export class TestPgSqlClient extends PgSqlClient {
  private closed = false;

  constructor(
    readonly schema: string,
    readonly connectionString: string,
    poolSize: number,
  ) {
    super({ connectionString, poolSize, connectionTimeoutMs: 10_000, statementTimeoutMs: 20_000 });
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await super.close();
    await admin((client) => client.query(`DROP SCHEMA IF EXISTS ${this.schema} CASCADE`));
  }
}

/**
 * A fresh schema `t_<random>` on TEST_DATABASE_URL, migrated unless `migrated: false`, behind a
 * pool whose connections use it as `search_path`.
 */
export async function openTestPostgres(
  options: OpenOptions & { poolSize?: number } = {},
): Promise<TestPgSqlClient> {
  const baseUrl = requireDatabaseUrl();
  const schema = `t_${randomBytes(8).toString('hex')}`;
  await admin((client) => client.query(`CREATE SCHEMA ${schema}`));
  const client = new TestPgSqlClient(schema, schemaConnectionString(baseUrl, schema), options.poolSize ?? 10);
  try {
    if (options.migrated ?? true) await migrate(client, testMigrations());
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

// ---------------------------------------------------------------------------------------------
// Both

export function openTestStore(kind: StoreKind, options: OpenOptions = {}): Promise<SqlClient> {
  return kind === 'pglite' ? openTestPglite(options) : openTestPostgres(options);
}

export type OpenStore = (options?: OpenOptions) => Promise<SqlClient>;

/**
 * Registers `body` once per store: `describe("<name> [pglite]")` always and
 * `describe.skipIf(!pgEnabled)("<name> [postgres]")`. `open` gives a fresh database of that store.
 */
export function forEachStore(name: string, body: (open: OpenStore, kind: StoreKind) => void): void {
  for (const kind of STORES) {
    const open: OpenStore = (options) => openTestStore(kind, options);
    describe.skipIf(kind === 'postgres' && !pgEnabled)(`${name} [${kind}]`, () => body(open, kind));
  }
}

/** Empties every application table (not schema_migrations): a cheap reset between tests. */
export async function truncateAll(client: SqlClient): Promise<void> {
  const { rows } = await client.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`,
  );
  if (rows.length === 0) return;
  const tables = rows.map((row) => `"${row.tablename.replaceAll('"', '""')}"`).join(', ');
  await client.exec(`TRUNCATE ${tables} CASCADE`);
}

export interface Repositories {
  users: SqlUserRepository;
  directory: SqlDirectoryRepository;
  sessions: SqlSessionStore;
  throttle: SqlThrottleStore;
  audit: SqlAuditLog;
  logoutTokens: SqlSeenLogoutTokens;
  secrets: SqlServiceSecrets;
  findSessionWithUser: SqlSessionLookup['findSessionWithUser'];
}

/** The repositories as SqlStore builds them outside a transaction (session lookups batched). */
export function repositories(client: SqlClient, options: { batchLookups?: boolean } = {}): Repositories {
  const lookup = new SqlSessionLookup(client, { batchLookups: options.batchLookups ?? true });
  return {
    users: new SqlUserRepository(client),
    directory: new SqlDirectoryRepository(client),
    sessions: new SqlSessionStore(client, lookup),
    throttle: new SqlThrottleStore(client),
    audit: new SqlAuditLog(client),
    logoutTokens: new SqlSeenLogoutTokens(client),
    secrets: new SqlServiceSecrets(client),
    findSessionWithUser: (tokenHash) => lookup.findSessionWithUser(tokenHash),
  };
}

/** One store (PGlite) on each transport: Koa, then Fastify. For the suites about HTTP alone. */
export const TRANSPORT_TARGETS: readonly ServiceStoreKind[] = ['pglite', 'fastify'];

/**
 * For the suites about HTTP and policy, not storage (what a request may do, what an answer says
 * or logs): the in-memory session store on Koa, then PGlite on Fastify, so both transports and
 * both kinds of session store (in the process, in SQL) are met. A PostgreSQL or Redis repeat would
 * test the stores again: the store contract suites do that on every adapter, and the suites on
 * SERVICE_STORES over HTTP. Lean: the in-memory store alone.
 */
export const POLICY_TARGETS: readonly ServiceStoreKind[] = LEAN ? ['memory'] : ['memory', 'fastify'];
