/** Benchmark settings from the environment (all optional). */
import { adminDatabaseUrl } from './databases.js';

/** At most this many registry changes are timed in a run: each uses a redirect URI of its own. */
export const MAX_REGISTRY_CHANGES = 20;

/** At most this many instances are watched for a registry change (one per poll interval). */
export const MAX_PROPAGATION_INSTANCES = 4;

/** Where the benchmarked service runs: a store, or (`fastify`) PostgreSQL with HTTP_TRANSPORT=fastify. */
export type BenchStore = 'postgres' | 'fastify' | 'pglite' | 'redis' | 'redis-cluster';

const ALL_STORES: readonly BenchStore[] = ['postgres', 'fastify', 'pglite', 'redis', 'redis-cluster'];

/** The per-customer providers target (PostgreSQL): not a store, named in BENCH_STORES all the same. */
export const PROVIDERS_TARGET = 'providers';

/** Forged tokens against a hostile provider's key set (no service, no database): `keys`. */
export const KEYS_TARGET = 'keys';

const EXTRA_TARGETS: readonly string[] = [PROVIDERS_TARGET, KEYS_TARGET];

export interface BenchOptions {
  /** Length of each timed phase (BENCH_SECONDS, default 10). */
  seconds: number;
  /**
   * BENCH_STORES, comma-separated; default all five (the Redis stores keep users in PostgreSQL;
   * PostgreSQL and Redis are skipped when unreachable or not installed, unless asked for).
   */
  stores: BenchStore[];
  storesExplicit: boolean;
  /** Server on which a throwaway database is created. */
  adminDatabaseUrl: string;
  /** Sessions created by real logins before the session phase (BENCH_SESSIONS, default 200). */
  sessions: number;
  /** Password users imported (BENCH_USERS, default 200). */
  users: number;
  /** SSO users imported and known to the provider (BENCH_SSO_USERS, default 20). */
  ssoUsers: number;
  /**
   * Users the two-step login phase enrols in TOTP (BENCH_TOTP_USERS, default 1,000): a code is
   * accepted once per 30-s step, so about one user per two-step login in a step (10 s at ~65/s).
   */
  totpUsers: number;
  sessionConnections: number;
  loginConnections: number;
  /** WORKERS for the PostgreSQL service (BENCH_WORKERS, default 1). */
  workers: number;
  /** Where the JSON goes (BENCH_OUTPUT, default bench-results/latest.json; "-" for stdout only). */
  output: string;
  /** BENCH_CPU_PROF=dir: run the service under `node --cpu-prof` and keep its profiles there. */
  cpuProfDir: string | null;
  /** BENCH_PGLITE_TEMPLATE: a tar of a migrated PGlite data directory to start from (the smoke test). */
  pgliteTemplate: string | null;
  /** Sessions added to Redis for the memory figure (BENCH_REDIS_SESSIONS, default 100,000). */
  redisSessions: number;
  /** Length of the cluster failover phase (BENCH_FAILOVER_SECONDS, default 20; the kill at 3 s). */
  failoverSeconds: number;
  /** BENCH_SERVICE_ENV="A=1 B=2": extra environment for the service under test (experiments). */
  serviceEnv: Record<string, string>;
  /** Whether the per-customer providers target runs (`providers` in BENCH_STORES, default yes). */
  providerScale: boolean;
  /** Whether the hostile key set target runs (`keys` in BENCH_STORES, default yes). */
  hostileKeys: boolean;
  /** Providers registered in the larger registry (BENCH_PROVIDERS, default 1,000). */
  providers: number;
  /** Interleaved rounds of SSO logins, each variant each round (BENCH_PROVIDER_ROUNDS, default 6). */
  providerRounds: number;
  /**
   * SSO_REGISTRY_POLL_MS of the instances a registry change is timed to (BENCH_REGISTRY_POLL_MS,
   * comma-separated, default "5000,250": the shipped default and a short one).
   */
  registryPollMs: number[];
  /** Registry changes timed, each an add and a disable (BENCH_REGISTRY_CHANGES, default 5, at most 20). */
  registryChanges: number;
}

function parseAssignments(raw: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of (raw ?? '').split(/\s+/).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`BENCH_SERVICE_ENV: expected NAME=VALUE, got "${item}"`);
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

export function benchOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const storesRaw = env.BENCH_STORES?.trim();
  const targets = (storesRaw ? storesRaw.split(',') : [...ALL_STORES, ...EXTRA_TARGETS]).map((store) =>
    store.trim(),
  );
  for (const target of targets) {
    if (!ALL_STORES.includes(target as BenchStore) && !EXTRA_TARGETS.includes(target)) {
      throw new Error(
        `BENCH_STORES: unknown target "${target}" (${[...ALL_STORES, ...EXTRA_TARGETS].join(', ')})`,
      );
    }
  }
  const stores = targets.filter((target) => !EXTRA_TARGETS.includes(target));
  const registryChanges = Math.round(positiveInt(env, 'BENCH_REGISTRY_CHANGES', 5));
  if (registryChanges > MAX_REGISTRY_CHANGES) {
    throw new Error(`BENCH_REGISTRY_CHANGES: at most ${MAX_REGISTRY_CHANGES}, got ${registryChanges}`);
  }
  const registryPollMs = (env.BENCH_REGISTRY_POLL_MS?.trim() || '5000,250').split(',').map((raw) => {
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value < 100 || value > 10_000) {
      throw new Error(
        `BENCH_REGISTRY_POLL_MS: each must be 100 to 10000 (SSO_REGISTRY_POLL_MS), got "${raw}"`,
      );
    }
    return value;
  });
  if (registryPollMs.length > MAX_PROPAGATION_INSTANCES) {
    throw new Error(`BENCH_REGISTRY_POLL_MS: at most ${MAX_PROPAGATION_INSTANCES} intervals`);
  }
  return {
    seconds: positiveInt(env, 'BENCH_SECONDS', 10),
    stores: stores as BenchStore[],
    storesExplicit: Boolean(storesRaw),
    adminDatabaseUrl: adminDatabaseUrl(env).url,
    sessions: Math.round(positiveInt(env, 'BENCH_SESSIONS', 200)),
    users: Math.round(positiveInt(env, 'BENCH_USERS', 200)),
    ssoUsers: Math.round(positiveInt(env, 'BENCH_SSO_USERS', 20)),
    totpUsers: Math.round(positiveInt(env, 'BENCH_TOTP_USERS', 1000)),
    sessionConnections: Math.round(positiveInt(env, 'BENCH_CONNECTIONS', 32)),
    loginConnections: Math.round(positiveInt(env, 'BENCH_LOGIN_CONNECTIONS', 8)),
    workers: Math.round(positiveInt(env, 'BENCH_WORKERS', 1)),
    output: env.BENCH_OUTPUT || 'bench-results/latest.json',
    cpuProfDir: env.BENCH_CPU_PROF || null,
    pgliteTemplate: env.BENCH_PGLITE_TEMPLATE || null,
    redisSessions: Math.round(positiveInt(env, 'BENCH_REDIS_SESSIONS', 100_000)),
    failoverSeconds: positiveInt(env, 'BENCH_FAILOVER_SECONDS', 20),
    serviceEnv: parseAssignments(env.BENCH_SERVICE_ENV),
    providerScale: targets.includes(PROVIDERS_TARGET),
    hostileKeys: targets.includes(KEYS_TARGET),
    providers: Math.round(positiveInt(env, 'BENCH_PROVIDERS', 1000)),
    providerRounds: Math.round(positiveInt(env, 'BENCH_PROVIDER_ROUNDS', 6)),
    registryPollMs,
    registryChanges,
  };
}
