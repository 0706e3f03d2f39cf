import type { Container } from 'inversify';
import type { HttpApp } from '../adapters/http/http-app.js';
import { HttpCore } from '../adapters/http/http-core.js';
import { createLogger, type Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import { metricsRoutes } from '../adapters/metrics/metrics-routes.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import type { AdminAudit } from '../application/admin/admin-audit.js';
import type { AdminDirectory } from '../application/admin/admin-directory.js';
import type { AdminProviders } from '../application/admin/admin-providers.js';
import type { AdminUsers } from '../application/admin/admin-users.js';
import type { ImportUsers } from '../application/admin/import-users.js';
import type { LoginEvents } from '../application/login-events.js';
import type { Purger } from '../application/purger.js';
import type { SessionAuthenticator } from '../application/session-authenticator.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { SessionSide } from '../domain/session/session-side.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { createHttpApp } from './http-transport.js';
import type { Lifecycle } from './lifecycle.js';
import { openServiceContainer } from './service-container.js';
import type { ServiceRole } from './service-role.js';
import { TOKENS } from './tokens.js';

export interface GatehouseOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  random?: Random;
  passwordHasher?: PasswordHasher;
  loginEvents?: LoginEvents;
  /** Replaces the network `fetch` used towards the OpenID provider (tests). */
  oidcFetch?: typeof fetch;
  /**
   * A session store of the embedder's own (sessions and login throttling; docs/stores.md), in
   * place of the one SESSION_STORE names. Users, directory and audit stay in the database.
   */
  sessionStore?: SessionSide;
}

/** The administration use cases, as the `gatehouse` command runs them (docs/operations.md). */
export interface GatehouseAdministration {
  users: AdminUsers;
  directory: AdminDirectory;
  providers: AdminProviders;
  importUsers: ImportUsers;
  audit: AdminAudit;
}

/**
 * An embedded Gatehouse: what an embedder serves, guards and administers with. No container and
 * no store: everything reaches the database through the use cases, as the service's own code does.
 */
export interface Gatehouse {
  /** The API on the transport HTTP_TRANSPORT names (Koa or Fastify): serve it with `listen`. */
  app: HttpApp;
  /**
   * With METRICS_PORT set, the app serving `/metrics` (and nothing else) for a listener of its
   * own on `config.metrics` (the service starts it); null when /metrics is on the main app.
   */
  metricsApp: HttpApp | null;
  /** This instance's Prometheus metrics, on a registry of its own. */
  metrics: GatehouseMetrics;
  config: Config;
  logger: Logger;
  /**
   * The guard source: the session check the guards of `gatehouse/koa`, `gatehouse/express` and
   * `gatehouse/fastify` call (with `config`'s cookie name and trusted origins).
   */
  authenticator: SessionAuthenticator;
  admin: GatehouseAdministration;
  /** Stops the start-up work (the purge, the providers' watch) and closes the store. */
  close(): Promise<void>;
}

/**
 * The facade as the service and the tests hold it: also the container and the store. Not exported
 * by the package (src/index.ts exports `Gatehouse`).
 */
export interface ServiceGatehouse extends Gatehouse {
  container: Container;
  /**
   * The store the service uses: users, directory and audit in the database, sessions and login
   * throttling where SESSION_STORE (or `sessionStore`) puts them.
   */
  store: Store;
  /** The periodic purge (every PURGE_INTERVAL_S; unref'd): `runOnce()` runs one cycle now. */
  purger: Purger;
}

/** Opens the store (migrating it), builds the container and the HTTP app of the configured transport. */
export async function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  const { app, metricsApp, metrics, config, logger, authenticator, admin, close } =
    await openGatehouse(options);
  return { app, metricsApp, metrics, config, logger, authenticator, admin, close };
}

/**
 * `createGatehouse` over a database client already open: tests run two instances on one database
 * or start from a prepared copy. Not exported by the package (its facade names no database type).
 */
export async function createGatehouseOver(
  sqlClient: SqlClient,
  options: GatehouseOptions,
): Promise<ServiceGatehouse> {
  return openGatehouse(options, sqlClient);
}

/**
 * The service process's Gatehouse (src/boot/main.ts): its lifecycle also bootstraps, warms the
 * hasher up, opens the administration socket and listens.
 */
export function openServiceGatehouse(
  options: GatehouseOptions,
  role: ServiceRole,
): Promise<ServiceGatehouse> {
  return openGatehouse(options, undefined, role);
}

async function openGatehouse(
  options: GatehouseOptions,
  sqlClient?: SqlClient,
  role?: ServiceRole,
): Promise<ServiceGatehouse> {
  const { config } = options;
  const { container } = await openServiceContainer({
    config,
    logger: options.logger ?? createLogger(config.logLevel),
    serving: options.oidcFetch ? { oidcFetch: options.oidcFetch } : {},
    ...(sqlClient ? { sqlClient } : {}),
    ...(options.sessionStore ? { sessionSide: options.sessionStore } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.passwordHasher ? { passwordHasher: options.passwordHasher } : {}),
    ...(options.loginEvents ? { loginEvents: options.loginEvents } : {}),
    ...(role ? { role } : {}),
  });
  const store = container.get(TOKENS.Store);
  let lifecycle: Lifecycle | null = null;
  try {
    const logger = container.get(TOKENS.Logger);
    const metrics = container.get(TOKENS.Metrics);
    if (!metrics) throw new Error('createGatehouse: the container was built without metrics');
    const authenticator = container.get(TOKENS.SessionAuthenticator);
    const transport = config.http.transport;
    const proxy = { trustedProxyHops: config.http.trustedProxyHops };
    const app = await createHttpApp(transport, container.get(TOKENS.HttpCore), proxy);
    // METRICS_PORT: `/metrics` and nothing else (every other path is a 404 problem), so the scrape
    // port can be kept off the public network.
    const metricsApp =
      config.metrics.port === null
        ? null
        : await createHttpApp(
            transport,
            new HttpCore({
              logger,
              trustedOrigins: [],
              routes: metricsRoutes(metrics),
              authenticator,
              cookieName: config.cookie.name,
            }),
            proxy,
          );
    container.bind(TOKENS.HttpApps).toConstantValue({ app, metricsApp });
    lifecycle = container.get(TOKENS.Lifecycle);
    // Closes what it had started (the store included) when a step fails.
    await lifecycle.start();
    const stop = lifecycle;
    return {
      app,
      metrics,
      metricsApp,
      store,
      container,
      config,
      logger,
      authenticator,
      admin: {
        users: container.get(TOKENS.AdminUsers),
        directory: container.get(TOKENS.AdminDirectory),
        providers: container.get(TOKENS.AdminProviders),
        importUsers: container.get(TOKENS.ImportUsers),
        audit: container.get(TOKENS.AdminAudit),
      },
      purger: container.get(TOKENS.Purger),
      close: () => stop.stop(),
    };
  } catch (error) {
    if (!lifecycle) await store.close();
    throw error;
  }
}
