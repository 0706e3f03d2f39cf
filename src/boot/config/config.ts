import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ID_TOKEN_ALGORITHMS } from '../../domain/sso/provider-registration.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/**
 * How many proxies stand in front of the service: `false` none, `true` one, or their number. The
 * client address is the entry that many places from the right of `X-Forwarded-For`: each proxy
 * appends the address it saw, so the entries further left were written by the client and prove
 * nothing.
 */
const proxyHops = z
  .string()
  .regex(/^(true|false|yes|no|\d+)$/, 'must be false, true, or the number of proxies in front (1 to 10)')
  .transform((value) =>
    value === 'true' || value === 'yes' ? 1 : value === 'false' || value === 'no' ? 0 : Number(value),
  )
  .pipe(z.number().int().min(0, 'must be 0 to 10').max(10, 'must be 0 to 10'));

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

const url = z.string().refine((value) => URL.canParse(value), 'must be a URL');

const levels = commaList.pipe(
  z.array(
    z
      .string()
      .regex(/^(0|4|8|12|16)$/, 'each level must be one of 0, 4, 8, 12, 16')
      .transform(Number),
  ),
);

/** Every environment variable the service reads, with its default (contract section 7). */
const envSchema = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
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
  HTTP_TRANSPORT: z.enum(['koa', 'fastify'], { message: 'must be koa or fastify' }).default('koa'),
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
  PROVIDE_BACKEND_INFO: bool.default(false),
  SESSION_IDLE_TIMEOUT_S: int(60, 31_536_000).default(1800),
  SESSIONS_PER_USER_MAX: int(1, 100_000).default(100),
  SESSION_ABSOLUTE_TIMEOUT_S: int(60, 31_536_000).default(43_200),
  COOKIE_NAME: z
    .string()
    .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be a cookie token')
    .default('sessionid'),
  COOKIE_SECURE: bool.default(true),
  COOKIE_SAMESITE: z.enum(['lax', 'strict', 'none']).default('lax'),
  COOKIE_DOMAIN: z.string().min(1).optional(),
  PASSWORD_MAX_AGE_DAYS: int(0, 36_500).default(0),
  PASSWORD_MIN_LENGTH: int(8, 1024).default(12),
  PASSWORD_MIN_SCORE: int(0, 4).default(3),
  ARGON2_MEMORY_KIB: int(19_456, 4_194_304).default(19_456),
  ARGON2_TIME_COST: int(2, 100).default(2),
  ARGON2_PARALLELISM: int(1, 16).default(1),
  LOGIN_MAX_FAILURES: int(1, 1000).default(5),
  LOGIN_FAILURE_WINDOW_S: int(1, 86_400).default(900),
  TRUSTED_ORIGINS: commaList.pipe(z.array(url)).default([]),
  TRUST_PROXY: proxyHops.default(0),
  OIDC_ISSUER: url.optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_CLIENT_AUTH: z
    .enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt'])
    .default('client_secret_basic'),
  OIDC_PRIVATE_KEY_JWK: z.string().min(1).optional(),
  OIDC_REDIRECT_URIS: commaList.pipe(z.array(url)).default([]),
  OIDC_TIMEOUT_MS: int(100, 120_000).default(5000),
  // At most 10 s: a registry change (a disabled provider) must reach every instance within 10 s.
  SSO_REGISTRY_POLL_MS: int(100, 10_000).default(5000),
  OIDC_ID_TOKEN_ALG: z
    .enum(ID_TOKEN_ALGORITHMS, { message: `must be one of ${ID_TOKEN_ALGORITHMS.join(', ')}` })
    .default('RS256'),
  OIDC_ALLOW_INSECURE_HTTP: bool.default(false),
  /** Origins besides each issuer's own that its discovered endpoints may use (every provider). */
  OIDC_ENDPOINT_ORIGINS: commaList.pipe(z.array(url)).default([]),
  OIDC_REQUIRE_PKCE: bool.default(false),
  SSO_TOKEN_INTERPRETER: z.string().min(1).default('claims'),
  SSO_USERNAME_CLAIM: z.string().min(1).default('preferred_username'),
  SSO_GROUP_CLAIM: z.string().min(1).default('groups'),
  SSO_USER_LEVELS: levels.default([8]),
  /** `name=module specifier` pairs that registered providers may name (contract 6a). */
  SSO_INTERPRETERS: commaList.default([]),
  TOKEN_ENCRYPTION_KEY: z.string().min(1).optional(),
  /** Former keys, comma-separated: they still open what they sealed, but seal nothing new. */
  TOKEN_ENCRYPTION_KEYS_PREVIOUS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  HTTP_HEADERS_TIMEOUT_MS: int(100, 600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000).default(5_000),
  METRICS_PORT: int(0, 65535).optional(),
  METRICS_ON_MAIN_PORT: bool.default(false),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  BOOTSTRAP_ADMIN: bool.default(true),
  BOOTSTRAP_PASSWORD_FILE: z.string().min(1).default('./gatehouse-admin-password'),
  WORKERS: int(1, 64).default(1),
  AUDIT_RETENTION_DAYS: int(0, 36_500).default(90),
  PURGE_INTERVAL_S: int(0, 86_400).default(300),
  PURGE_BATCH_SIZE: int(1, 100_000).default(1000),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  http: {
    /** Which HTTP adapter serves the API (HTTP_TRANSPORT): the same routes and answers on either. */
    transport: 'koa' | 'fastify';
    port: number;
    host: string;
    /** Proxies in front of the service whose `X-Forwarded-*` headers are believed; 0: none. */
    trustedProxyHops: number;
    shutdownGraceMs: number;
    /** Slow-client limits of the listener (src/adapters/http/server.ts). */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /** `port` null: /metrics is served on the main port; set: only on host:port. */
  /**
   * Where `/metrics` is served: a listener of its own (`port`), the main port (`onMainPort`,
   * an explicit switch), or nowhere (the default: metrics reveal traffic and failure patterns).
   */
  metrics: { port: number | null; host: string; onMainPort: boolean };
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
  provideBackendInfo: boolean;
  session: { idleTimeoutS: number; absoluteTimeoutS: number; perUserMax: number };
  cookie: { name: string; secure: boolean; sameSite: 'lax' | 'strict' | 'none'; domain: string | undefined };
  password: {
    maxAgeDays: number;
    minLength: number;
    /** Lowest zxcvbn score (0-4) a new password may have; 0 turns the strength check off. */
    minScore: number;
    maxLength: number;
    argon2: { memoryKiB: number; timeCost: number; parallelism: number };
  };
  throttle: { maxFailures: number; windowS: number };
  trustedOrigins: string[];
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string | undefined;
    clientAuth: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
    privateKeyJwk: string | undefined;
    redirectUris: string[];
    timeoutMs: number;
    /** The one algorithm the provider's ID tokens and logout tokens may be signed with. */
    idTokenAlg: Env['OIDC_ID_TOKEN_ALG'];
    allowInsecureHttp: boolean;
    /** Refuse an SSO login without a `code_verifier` (recommended). */
    requirePkce: boolean;
  } | null;
  sso: {
    interpreter: string;
    usernameClaim: string;
    groupClaim: string;
    userLevels: number[];
    /**
     * SSO_INTERPRETERS: the interpreter modules registered providers may name, by name. A Map, so
     * a name read from the database (`constructor`, `__proto__`) finds only what was configured.
     */
    interpreters: ReadonlyMap<string, string>;
    /** Deployment-wide, for every provider (OIDC_TIMEOUT_MS, OIDC_ALLOW_INSECURE_HTTP). */
    providerTimeoutMs: number;
    allowInsecureHttp: boolean;
    /** OIDC_ENDPOINT_ORIGINS: where discovered endpoints may be besides the issuer's origin. */
    endpointOrigins: readonly string[];
    /** How often each instance asks whether the provider registry changed. */
    registryPollMs: number;
  };
  tokenEncryptionKey: string | undefined;
  /** Keys from before a rotation: opened, never used to seal. */
  tokenEncryptionKeysPrevious: string[];
  logLevel: Env['LOG_LEVEL'];
  bootstrapAdmin: boolean;
  /** Where the bootstrap administrator's one-time password goes when stdout is not a terminal. */
  bootstrapPasswordFile: string;
  /** Processes serving HTTP (node:cluster); more than 1 needs PostgreSQL. */
  workers: number;
  /** Audit events are kept this many days (0: for ever). */
  audit: { retentionDays: number };
  /** The periodic purge of dead sessions, stale throttling rows and old audit events (0: off). */
  purge: { intervalS: number; batchSize: number };
  /**
   * A customer interpreter package's own settings: every `SSO_INTERPRETER_<NAME>` variable, as
   * `<NAME>`. Never the rest of the environment: the database URL, client secret and encryption
   * keys are none of a claims mapper's business.
   */
  interpreterSettings: Readonly<Record<string, string>>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Connections per process: twice the cores, at least 4 and at most 10. On 2 cores 4 connections
 * serve the session check ~15 % faster than 10 (fewer PostgreSQL processes competing for the CPU);
 * docs/performance.md has the measurement.
 */
function defaultPoolSize(): number {
  return Math.min(10, Math.max(4, 2 * availableParallelism()));
}

/** Names an operator gives interpreters in SSO_INTERPRETERS; `claims` is the built-in one's. */
const INTERPRETER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const BUILT_IN_INTERPRETER = 'claims';

/** The interpreter names a registered provider may take here: the built-in one and SSO_INTERPRETERS'. */
export function allowedInterpreterNames(config: Config): string[] {
  return [BUILT_IN_INTERPRETER, ...config.sso.interpreters.keys()];
}

function interpreterMapProblems(pairs: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    const name = separator > 0 ? pair.slice(0, separator).trim() : '';
    const specifier = separator > 0 ? pair.slice(separator + 1).trim() : '';
    if (!INTERPRETER_NAME.test(name) || specifier === '') {
      problems.push(
        `SSO_INTERPRETERS: ${JSON.stringify(pair)} is not name=module (name: a-z, 0-9, "-", "_")`,
      );
    } else if (name === BUILT_IN_INTERPRETER) {
      problems.push(`SSO_INTERPRETERS: "${BUILT_IN_INTERPRETER}" is the built-in interpreter's name`);
    } else if (seen.has(name)) {
      problems.push(`SSO_INTERPRETERS: ${JSON.stringify(name)} is given twice`);
    }
    seen.add(name);
  }
  return problems;
}

function interpreterMap(pairs: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    map.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
  }
  return map;
}

/** The prefix of the variables handed to a customer interpreter package, without it. */
export const INTERPRETER_SETTING_PREFIX = 'SSO_INTERPRETER_';

function interpreterSettingsOf(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (
      name.startsWith(INTERPRETER_SETTING_PREFIX) &&
      name.length > INTERPRETER_SETTING_PREFIX.length &&
      value !== undefined
    ) {
      settings[name.slice(INTERPRETER_SETTING_PREFIX.length)] = value;
    }
  }
  return settings;
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

function definedValues(environment: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) if (value !== undefined) values[name] = value;
  return values;
}

/** Parses the environment once; a bad value throws ConfigError naming the variable. Never echoes secrets. */
export function loadConfig(environment: Readonly<Record<string, string | undefined>> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = environment[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  const env = parsed.data;
  const problems: string[] = [];
  const sessionStore = env.SESSION_STORE ?? (env.SESSION_STORE_MODULE ? 'module' : 'sql');

  if (env.SESSION_IDLE_TIMEOUT_S > env.SESSION_ABSOLUTE_TIMEOUT_S) {
    problems.push('SESSION_IDLE_TIMEOUT_S: must not exceed SESSION_ABSOLUTE_TIMEOUT_S');
  }
  if (env.METRICS_ON_MAIN_PORT && env.METRICS_PORT !== undefined) {
    problems.push('METRICS_ON_MAIN_PORT: choose one place for /metrics: METRICS_PORT or the main port');
  }
  if (env.COOKIE_NAME.startsWith('__Host-') && (env.COOKIE_DOMAIN || !env.COOKIE_SECURE)) {
    problems.push('COOKIE_NAME: a __Host- cookie needs COOKIE_SECURE=true and no COOKIE_DOMAIN');
  }
  if (env.COOKIE_NAME.startsWith('__Secure-') && !env.COOKIE_SECURE) {
    problems.push('COOKIE_NAME: a __Secure- cookie needs COOKIE_SECURE=true');
  }
  if (env.COOKIE_SAMESITE === 'none' && !env.COOKIE_SECURE) {
    problems.push('COOKIE_SAMESITE: none requires COOKIE_SECURE=true');
  }
  const oidcSet = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID].filter(Boolean).length;
  if (oidcSet === 1) problems.push('OIDC_ISSUER and OIDC_CLIENT_ID: set both, or neither to turn SSO off');
  if (env.OIDC_ISSUER) {
    // URL parsing lower-cases the scheme, so `HTTP://` cannot slip past the check.
    const issuerProtocol = new URL(env.OIDC_ISSUER).protocol;
    if (issuerProtocol === 'http:' && !env.OIDC_ALLOW_INSECURE_HTTP) {
      problems.push('OIDC_ISSUER: an http:// issuer needs OIDC_ALLOW_INSECURE_HTTP=true (development only)');
    } else if (issuerProtocol !== 'http:' && issuerProtocol !== 'https:') {
      problems.push('OIDC_ISSUER: must be an https:// URL');
    }
    if (env.OIDC_REDIRECT_URIS.length === 0)
      problems.push('OIDC_REDIRECT_URIS: required when OIDC_ISSUER is set');
    if (env.OIDC_CLIENT_AUTH === 'private_key_jwt' && !env.OIDC_PRIVATE_KEY_JWK) {
      problems.push('OIDC_PRIVATE_KEY_JWK: required when OIDC_CLIENT_AUTH=private_key_jwt');
    }
    if (env.OIDC_PRIVATE_KEY_JWK) {
      try {
        const jwk = JSON.parse(env.OIDC_PRIVATE_KEY_JWK) as unknown;
        if (!jwk || typeof jwk !== 'object' || !('d' in jwk)) throw new Error('not a private JWK');
      } catch {
        problems.push('OIDC_PRIVATE_KEY_JWK: must be a private key as a JSON Web Key (JSON object with "d")');
      }
    }
    if (env.OIDC_CLIENT_AUTH !== 'private_key_jwt' && !env.OIDC_CLIENT_SECRET) {
      problems.push(`OIDC_CLIENT_SECRET: required when OIDC_CLIENT_AUTH=${env.OIDC_CLIENT_AUTH}`);
    }
  }
  problems.push(...interpreterMapProblems(env.SSO_INTERPRETERS));
  if (env.TOKEN_ENCRYPTION_KEY && Buffer.from(env.TOKEN_ENCRYPTION_KEY, 'base64').length !== 32) {
    problems.push('TOKEN_ENCRYPTION_KEY: must be 32 bytes, base64-encoded (openssl rand -base64 32)');
  }
  if (env.TOKEN_ENCRYPTION_KEYS_PREVIOUS.some((key) => Buffer.from(key, 'base64').length !== 32)) {
    problems.push(
      'TOKEN_ENCRYPTION_KEYS_PREVIOUS: each key must be 32 bytes, base64-encoded, comma-separated',
    );
  }
  if (env.TOKEN_ENCRYPTION_KEYS_PREVIOUS.length > 0 && !env.TOKEN_ENCRYPTION_KEY) {
    problems.push('TOKEN_ENCRYPTION_KEYS_PREVIOUS: needs TOKEN_ENCRYPTION_KEY (the key that seals)');
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
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
  if (problems.length > 0) throw new ConfigError(problems);

  const config: Config = {
    http: {
      transport: env.HTTP_TRANSPORT,
      port: env.PORT,
      host: env.HOST,
      trustedProxyHops: env.TRUST_PROXY,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
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
    metrics: { port: env.METRICS_PORT ?? null, host: env.METRICS_HOST, onMainPort: env.METRICS_ON_MAIN_PORT },
    provideBackendInfo: env.PROVIDE_BACKEND_INFO,
    session: {
      idleTimeoutS: env.SESSION_IDLE_TIMEOUT_S,
      absoluteTimeoutS: env.SESSION_ABSOLUTE_TIMEOUT_S,
      perUserMax: env.SESSIONS_PER_USER_MAX,
    },
    cookie: {
      name: env.COOKIE_NAME,
      secure: env.COOKIE_SECURE,
      sameSite: env.COOKIE_SAMESITE,
      domain: env.COOKIE_DOMAIN,
    },
    password: {
      maxAgeDays: env.PASSWORD_MAX_AGE_DAYS,
      minLength: env.PASSWORD_MIN_LENGTH,
      minScore: env.PASSWORD_MIN_SCORE,
      maxLength: 1024,
      argon2: {
        memoryKiB: env.ARGON2_MEMORY_KIB,
        timeCost: env.ARGON2_TIME_COST,
        parallelism: env.ARGON2_PARALLELISM,
      },
    },
    throttle: { maxFailures: env.LOGIN_MAX_FAILURES, windowS: env.LOGIN_FAILURE_WINDOW_S },
    trustedOrigins: env.TRUSTED_ORIGINS.map((origin) => new URL(origin).origin),
    oidc:
      env.OIDC_ISSUER && env.OIDC_CLIENT_ID
        ? {
            issuer: env.OIDC_ISSUER,
            clientId: env.OIDC_CLIENT_ID,
            clientSecret: env.OIDC_CLIENT_SECRET,
            clientAuth: env.OIDC_CLIENT_AUTH,
            privateKeyJwk: env.OIDC_PRIVATE_KEY_JWK,
            redirectUris: env.OIDC_REDIRECT_URIS,
            timeoutMs: env.OIDC_TIMEOUT_MS,
            idTokenAlg: env.OIDC_ID_TOKEN_ALG,
            allowInsecureHttp: env.OIDC_ALLOW_INSECURE_HTTP,
            requirePkce: env.OIDC_REQUIRE_PKCE,
          }
        : null,
    sso: {
      interpreter: env.SSO_TOKEN_INTERPRETER,
      usernameClaim: env.SSO_USERNAME_CLAIM,
      groupClaim: env.SSO_GROUP_CLAIM,
      userLevels: env.SSO_USER_LEVELS,
      interpreters: interpreterMap(env.SSO_INTERPRETERS),
      providerTimeoutMs: env.OIDC_TIMEOUT_MS,
      allowInsecureHttp: env.OIDC_ALLOW_INSECURE_HTTP,
      endpointOrigins: env.OIDC_ENDPOINT_ORIGINS.map((origin) => new URL(origin).origin),
      registryPollMs: env.SSO_REGISTRY_POLL_MS,
    },
    tokenEncryptionKey: env.TOKEN_ENCRYPTION_KEY,
    tokenEncryptionKeysPrevious: env.TOKEN_ENCRYPTION_KEYS_PREVIOUS,
    logLevel: env.LOG_LEVEL,
    bootstrapAdmin: env.BOOTSTRAP_ADMIN,
    bootstrapPasswordFile: env.BOOTSTRAP_PASSWORD_FILE,
    workers: env.WORKERS,
    audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
    purge: { intervalS: env.PURGE_INTERVAL_S, batchSize: env.PURGE_BATCH_SIZE },
    interpreterSettings: interpreterSettingsOf(environment),
  };
  return deepFreeze(config);
}

/**
 * Where sessions live, as the start-up log line and /readyz name it: `module` is a store of the
 * deployment's own (SESSION_STORE_MODULE, or one an embedder gives createGatehouse).
 */
export type SessionStoreName = 'sql' | 'memory' | 'redis' | 'redis-cluster' | 'module';

/** The session store the configuration names. */
export function sessionStoreName(config: Pick<Config, 'sessionStore'>): SessionStoreName {
  if (config.sessionStore.kind !== 'redis') return config.sessionStore.kind;
  return config.sessionStore.clusterNodes ? 'redis-cluster' : 'redis';
}
