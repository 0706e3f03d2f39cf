import { Writable } from 'node:stream';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { Argon2PasswordHasher } from '../../src/adapters/password/argon2-password-hasher.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { type Config, loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver, type ServiceGatehouse as Gatehouse } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import type { PasswordHasher } from '../../src/domain/password/password-hasher.port.js';
import type { EndingStore } from '../../src/domain/store.port.js';
import {
  EMPTY_ATTRIBUTES,
  type User,
  type UserAttributes,
  type UserLevel,
} from '../../src/domain/user/user.js';
import {
  openTestStore,
  type ServiceStoreKind,
  type ServiceTarget,
  type StoreKind,
  TARGETS,
  testRedisClusterNodes,
  testRedisUrl,
} from './databases.js';
import { TestClock } from './test-clock.js';

/** Environment every test server starts from; tests override single variables. */
export const TEST_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  COOKIE_SECURE: 'true',
};

export interface TestServer {
  url: string;
  gatehouse: Gatehouse;
  /**
   * The store behind the service as its adapters built it, sessions' deletes included: for tests
   * that end a session behind the service's back (another instance's logout, a concurrent
   * revocation). The service's own code ends sessions through `SessionEnding` only.
   */
  store: EndingStore;
  /** The database client the service runs on, for tests that read or break the database itself. */
  sql: SqlClient;
  config: Config;
  clock: TestClock;
  hasher: PasswordHasher;
  /** Every log line the service wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  rawLogs: string[];
  running: RunningServer;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * The target to run on, by name (default pglite): where the service keeps its sessions and which
   * transport serves (`TARGETS`); `redis`: the run's redis-server, users on PGlite; `memory`: in the
   * service's process, users on PGlite; `fastify`: PGlite, served by Fastify.
   */
  store?: ServiceStoreKind;
  env?: Record<string, string>;
  /** Pass a logger level to capture logs (default: 'info' captured into `logs`). */
  clock?: TestClock;
  prepare?: (gatehouse: Gatehouse) => Promise<void> | void;
  /** Replaces the `fetch` Gatehouse uses towards the OpenID provider (createGatehouse's oidcFetch). */
  oidcFetch?: typeof fetch;
  /** The hasher the service uses (default: argon2id with the configured parameters). */
  passwordHasher?: PasswordHasher;
  /** An open database to serve from (another instance's, to run two on one store); default: a fresh one. */
  sqlClient?: SqlClient;
}

let redisServers = 0;

/** A real Gatehouse on a real loopback socket over a fresh, migrated database. */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const target: ServiceTarget = TARGETS[options.store ?? 'pglite'];
  const onRedis = target.store === 'redis';
  const onCluster = target.store === 'redis-cluster';
  redisServers += 1;
  const config = loadConfig({
    ...TEST_ENV,
    LOG_LEVEL: 'info',
    // Each service on Redis gets a key prefix of its own: the run shares one redis-server.
    ...(onRedis
      ? {
          SESSION_STORE: 'redis',
          REDIS_URL: testRedisUrl(),
          REDIS_KEY_PREFIX: `t${process.pid}-${redisServers}:`,
        }
      : {}),
    ...(onCluster
      ? {
          SESSION_STORE: 'redis',
          REDIS_CLUSTER_NODES: testRedisClusterNodes(),
          REDIS_KEY_PREFIX: `c${process.pid}-${redisServers}:`,
        }
      : {}),
    ...(target.transport === 'fastify' ? { HTTP_TRANSPORT: 'fastify' } : {}),
    ...(target.store === 'memory' ? { SESSION_STORE: 'memory' } : {}),
    ...options.env,
  });
  const rawLogs: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue;
        rawLogs.push(line);
        try {
          logs.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not JSON: kept in rawLogs only
        }
      }
      callback();
    },
  });
  const clock = options.clock ?? new TestClock();
  const hasher = options.passwordHasher ?? new Argon2PasswordHasher(config.password.argon2);
  // Users, directory and audit: PostgreSQL for the postgres target, PGlite under every other store.
  const database: StoreKind = target.store === 'postgres' ? 'postgres' : 'pglite';
  const sqlClient = options.sqlClient ?? (await openTestStore(database));
  const gatehouse = await createGatehouseOver(sqlClient, {
    config,
    logger: createLogger(config.logLevel, sink),
    clock,
    passwordHasher: hasher,
    ...(options.oidcFetch ? { oidcFetch: options.oidcFetch } : {}),
  });
  await options.prepare?.(gatehouse);
  const running = await listen(gatehouse.app, 0, '127.0.0.1');
  return {
    url: running.url,
    gatehouse,
    store: gatehouse.container.get(TOKENS.Store),
    sql: sqlClient,
    config,
    clock,
    hasher,
    logs,
    rawLogs,
    running,
    close: async () => {
      await running.close(1000);
      await gatehouse.close();
    },
  };
}

export interface SeedUser extends Partial<UserAttributes> {
  username: string;
  password?: string;
  userLevel?: UserLevel;
  tenantId?: string | null;
  groupId?: string | null;
  userId?: string;
  backendName?: string | null;
  mustChangePassword?: boolean;
  disabled?: boolean;
}

let seq = 0;

/** Creates tenant/group/backend rows on demand and the user, hashing its password for real. */
export async function seedUser(server: TestServer, user: SeedUser): Promise<User> {
  const { store } = server.gatehouse;
  const ignoreConflict = (error: unknown) => {
    if ((error as { code?: string }).code !== 'CONFLICT') throw error;
  };
  if (user.tenantId) await store.directory.addTenant(user.tenantId, null).catch(ignoreConflict);
  if (user.groupId && user.tenantId) {
    await store.directory.addGroup(user.groupId, user.tenantId, null).catch(ignoreConflict);
  }
  if (user.backendName) {
    await store.directory
      .addBackend({ name: user.backendName, externalName: `${user.backendName} external` })
      .catch(ignoreConflict);
  }
  seq += 1;
  const created = await store.users.create(
    {
      ...EMPTY_ATTRIBUTES,
      ...pickAttributes(user),
      userId: user.userId ?? `u-${user.username}-${seq}`,
      username: user.username,
      userLevel: user.userLevel ?? 0,
      tenantId: user.tenantId ?? null,
      groupId: user.groupId ?? null,
      backendName: user.backendName ?? null,
      passwordHash: user.password === undefined ? null : await server.hasher.hash(user.password),
      mustChangePassword: user.mustChangePassword ?? false,
    },
    server.clock.now(),
  );
  if (user.disabled) await store.users.setDisabled(created.userId, true);
  return created;
}

function pickAttributes(user: SeedUser): Partial<UserAttributes> {
  const attributes: Partial<UserAttributes> = {};
  for (const key of Object.keys(EMPTY_ATTRIBUTES) as Array<keyof UserAttributes>) {
    if (user[key] !== undefined) (attributes as Record<string, unknown>)[key] = user[key];
  }
  return attributes;
}

/** A tiny HTTP client for tests: JSON in, JSON out, cookies kept by name. */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    readonly cookieName = 'sessionid',
  ) {}

  async request(
    method: string,
    path: string,
    options: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
    // biome-ignore lint/suspicious/noExplicitAny: answers of every shape; each test's assertions read them
  ): Promise<{ status: number; headers: Headers; body: any; text: string; setCookies: string[] }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.json !== undefined) headers['content-type'] ??= 'application/json';
    const cookieHeader = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (cookieHeader && headers.cookie === undefined) headers.cookie = cookieHeader;
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: as the answer's type above
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body, text, setCookies };
  }

  post(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { json: json ?? {}, ...(headers ? { headers } : {}) });
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, headers ? { headers } : {});
  }

  get session(): string | undefined {
    return this.cookies.get(this.cookieName);
  }
}
