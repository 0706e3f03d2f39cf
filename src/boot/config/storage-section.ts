import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { bool, commaList, type Environment, int, url } from './variables.js';

/** Where users, directory and audit live (the database) and where sessions do (SESSION_STORE). */
export const storageVariables = z.object({
  DATABASE_URL: url.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_POOL_SIZE: int(1, 200).optional(),
  DATABASE_QUEUE_TIMEOUT_MS: int(1, 60_000).default(2000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(100, 600_000).default(5000),
  // Unset: `module` when SESSION_STORE_MODULE names a store, else `sql`.
  SESSION_STORE: z
    .enum(['sql', 'redis', 'memory', 'module'], { message: 'must be sql, redis, memory or module' })
    .optional(),
  /** A deployment's own session store: a package name or a path from the working directory. */
  SESSION_STORE_MODULE: z.string().trim().min(1).optional(),
  /** SESSION_STORE=memory beside a database other instances may share, said to be right. */
  SESSION_STORE_MEMORY_ALLOW_SHARED: bool.default(false),
  REDIS_URL: z
    .string()
    .refine(
      (value) => /^rediss?:\/\/[^\s]+$/.test(value) && URL.canParse(value),
      'must be a redis:// or rediss:// URL',
    )
    .optional(),
  REDIS_CLUSTER_NODES: commaList
    .pipe(
      z.array(
        z.string().regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'each node must be host:port'),
      ),
    )
    .optional(),
  REDIS_CLUSTER_USERNAME: z.string().min(1).optional(),
  REDIS_CLUSTER_PASSWORD: z.string().min(1).optional(),
  REDIS_CLUSTER_TLS: bool.default(false),
  REDIS_TLS_CA_FILE: z.string().min(1).optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[^\s{}]{0,64}$/, 'must be up to 64 characters without spaces or braces')
    .default('gatehouse:'),
  REDIS_COMMAND_TIMEOUT_MS: int(50, 60_000).default(2000),
  WORKERS: int(1, 64).default(1),
});

export interface StorageConfig {
  /** Where sessions and login throttling live (SESSION_STORE); users, directory and audit stay in the database. */
  sessionStore:
    | { kind: 'sql' }
    /** In this process's memory: one process, nothing kept across a restart. */
    | { kind: 'memory' }
    /**
     * A deployment's own store (SESSION_STORE_MODULE): the module's default export, called with
     * the environment, gives the SessionSide.
     */
    | { kind: 'module'; specifier: string; environment: Readonly<Record<string, string>> }
    | {
        kind: 'redis';
        url: string | undefined;
        clusterNodes: string[] | undefined;
        clusterAuth: { username?: string; password?: string; tls: boolean };
        keyPrefix: string;
        commandTimeoutMs: number;
        /** PEM certificates to trust for Redis TLS (REDIS_TLS_CA_FILE, read at start-up). */
        tlsCa: string | undefined;
      };
  database:
    | { kind: 'postgres'; url: string; poolSize: number; queueTimeoutMs: number; statementTimeoutMs: number }
    | { kind: 'pglite'; dataDir: string };
  /** Processes serving HTTP (node:cluster); more than 1 needs PostgreSQL. */
  workers: number;
}

/**
 * Connections per process: twice the cores, at least 4 and at most 10. On 2 cores 4 connections
 * serve the session check ~15 % faster than 10 (fewer PostgreSQL processes competing for the CPU);
 * docs/performance.md has the measurement.
 */
function defaultPoolSize(): number {
  return Math.min(10, Math.max(4, 2 * availableParallelism()));
}

/** SESSION_STORE_MODULE and SESSION_STORE agree: the module is used only when nothing else is named. */
function sessionStoreModuleProblems(sessionStore: string, specifier: string | undefined): string[] {
  if (sessionStore === 'module' && !specifier) {
    return ['SESSION_STORE: module needs SESSION_STORE_MODULE (the package or path of the store)'];
  }
  if (sessionStore !== 'module' && specifier) {
    return [
      `SESSION_STORE_MODULE: is set but SESSION_STORE is ${sessionStore}; unset SESSION_STORE (or set it to module) to use the module, or unset SESSION_STORE_MODULE`,
    ];
  }
  return [];
}

function definedValues(environment: Environment): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) if (value !== undefined) values[name] = value;
  return values;
}

/** The session store's problems: one store named, what it needs given, and shared when it must be. */
function sessionStoreProblems(env: z.infer<typeof storageVariables>, sessionStore: string): string[] {
  const problems: string[] = [];
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES && env.REDIS_CLUSTER_NODES.length > 0) {
    problems.push(
      'REDIS_CLUSTER_NODES: set either REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster), not both',
    );
  } else if (sessionStore === 'redis' && !env.REDIS_URL && !(env.REDIS_CLUSTER_NODES?.length ?? 0)) {
    problems.push('SESSION_STORE: redis needs REDIS_URL (one server) or REDIS_CLUSTER_NODES (a cluster)');
  }
  if (sessionStore !== 'redis' && (env.REDIS_URL || (env.REDIS_CLUSTER_NODES?.length ?? 0) > 0)) {
    problems.push(
      `SESSION_STORE: REDIS_URL or REDIS_CLUSTER_NODES is set but SESSION_STORE is ${sessionStore}; set SESSION_STORE=redis to use it`,
    );
  }
  problems.push(...sessionStoreModuleProblems(sessionStore, env.SESSION_STORE_MODULE));
  if (sessionStore === 'memory' && env.WORKERS > 1) {
    problems.push(
      'WORKERS: more than 1 needs a shared session store; SESSION_STORE=memory lives in one process',
    );
  } else if (sessionStore === 'memory' && env.DATABASE_URL && !env.SESSION_STORE_MEMORY_ALLOW_SHARED) {
    // Instances sharing the database would each keep sessions of their own: a revocation, a
    // disabled user or a new password on one would leave the others' sessions alive.
    problems.push(
      'SESSION_STORE: memory keeps sessions in this process only, but DATABASE_URL names a database ' +
        'other instances may share (a revocation on one would not reach the others); use sql or redis, ' +
        'or set SESSION_STORE_MEMORY_ALLOW_SHARED=true if this is the only instance',
    );
  }
  if (env.WORKERS > 1 && !env.DATABASE_URL) {
    problems.push('WORKERS: more than 1 needs DATABASE_URL (the embedded database serves one process only)');
  }
  return problems;
}

export function storageSection(env: z.infer<typeof storageVariables>, environment: Environment) {
  const sessionStore = env.SESSION_STORE ?? (env.SESSION_STORE_MODULE ? 'module' : 'sql');
  const problems = sessionStoreProblems(env, sessionStore);
  let tlsCa: string | undefined;
  if (env.REDIS_TLS_CA_FILE) {
    try {
      tlsCa = readFileSync(env.REDIS_TLS_CA_FILE, 'utf8');
      if (!tlsCa.includes('-----BEGIN CERTIFICATE-----'))
        problems.push('REDIS_TLS_CA_FILE: holds no PEM certificate');
    } catch {
      problems.push('REDIS_TLS_CA_FILE: cannot be read');
    }
  }
  return {
    problems,
    build: (): StorageConfig => ({
      sessionStore:
        env.SESSION_STORE === 'redis'
          ? {
              kind: 'redis',
              url: env.REDIS_URL,
              clusterNodes:
                env.REDIS_CLUSTER_NODES && env.REDIS_CLUSTER_NODES.length > 0
                  ? env.REDIS_CLUSTER_NODES
                  : undefined,
              clusterAuth: {
                ...(env.REDIS_CLUSTER_USERNAME ? { username: env.REDIS_CLUSTER_USERNAME } : {}),
                ...(env.REDIS_CLUSTER_PASSWORD ? { password: env.REDIS_CLUSTER_PASSWORD } : {}),
                tls: env.REDIS_CLUSTER_TLS,
              },
              keyPrefix: env.REDIS_KEY_PREFIX,
              commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
              tlsCa,
            }
          : sessionStore === 'module'
            ? {
                kind: 'module',
                specifier: env.SESSION_STORE_MODULE ?? '',
                environment: definedValues(environment),
              }
            : { kind: sessionStore === 'memory' ? 'memory' : 'sql' },
      database: env.DATABASE_URL
        ? {
            kind: 'postgres',
            url: env.DATABASE_URL,
            poolSize: env.DATABASE_POOL_SIZE ?? defaultPoolSize(),
            queueTimeoutMs: env.DATABASE_QUEUE_TIMEOUT_MS,
            statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
          }
        : { kind: 'pglite', dataDir: env.DATA_DIR },
      workers: env.WORKERS,
    }),
  };
}

/**
 * Where sessions live, as the start-up log line and /readyz name it: `module` is a store of the
 * deployment's own (SESSION_STORE_MODULE, or one an embedder gives createGatehouse).
 */
export type SessionStoreName = 'sql' | 'memory' | 'redis' | 'redis-cluster' | 'module';

/** The session store the configuration names. */
export function sessionStoreName(config: Pick<StorageConfig, 'sessionStore'>): SessionStoreName {
  if (config.sessionStore.kind !== 'redis') return config.sessionStore.kind;
  return config.sessionStore.clusterNodes ? 'redis-cluster' : 'redis';
}
