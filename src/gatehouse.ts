import type { Container } from 'inversify';
import type { HttpApp } from './adapters/http/http-app.js';
import { HttpCore } from './adapters/http/http-core.js';
import { createLogger, type Logger } from './adapters/logging/logger.js';
import { GatehouseMetrics } from './adapters/metrics/gatehouse-metrics.js';
import { metricsRoutes } from './adapters/metrics/metrics-routes.js';
import { PgSqlClient } from './adapters/sql/pg-sql-client.js';
import type { SessionSide } from './adapters/sql/split-store.js';
import type { SqlClient } from './adapters/sql/sql-client.js';
import { SqlProviderRegistry } from './adapters/sql/sql-provider-registry.js';
import type { SqlStore } from './adapters/sql/sql-store.js';
import type { LoginEvents } from './application/login-events.js';
import type { Purger } from './application/purger.js';
import type { SessionAuthenticator } from './application/session-authenticator.js';
import { warnAboutConfiguration } from './composition/configuration-warnings.js';
import { buildContainer } from './composition/container.js';
import { createHttpApp } from './composition/http-transport.js';
import { openServiceStore } from './composition/open-service-store.js';
import { openSqlClient } from './composition/open-store.js';
import { createSsoParts } from './composition/sso-parts.js';
import { TOKENS } from './composition/tokens.js';
import type { Config } from './config/config.js';
import type { PasswordHasher } from './domain/password/password-hasher.port.js';
import type { Clock } from './domain/shared/clock.port.js';
import type { Random } from './domain/shared/random.port.js';
import type { Store } from './domain/store.port.js';

export interface GatehouseOptions {
  config: Config;
  logger?: Logger;
  clock?: Clock;
  random?: Random;
  passwordHasher?: PasswordHasher;
  loginEvents?: LoginEvents;
  /** An already-open SQL client (tests); otherwise opened from the configuration. */
  sqlClient?: SqlClient;
  /** Replaces the network `fetch` used towards the OpenID provider (tests). */
  oidcFetch?: typeof fetch;
  /**
   * A session store of the embedder's own (sessions and login throttling; docs/stores.md), in
   * place of the one SESSION_STORE names. Users, directory and audit stay in the database.
   */
  sessionStore?: SessionSide;
}

export interface Gatehouse {
  /** The API on the transport HTTP_TRANSPORT names (Koa or Fastify): serve it with `listen`. */
  app: HttpApp;
  /** The store the service uses: the database, with sessions where SESSION_STORE (or `sessionStore`) puts them. */
  store: Store;
  /** The database: users, directory, audit (and sessions with SESSION_STORE=sql). */
  database: SqlStore;
  container: Container;
  config: Config;
  logger: Logger;
  authenticator: SessionAuthenticator;
  /** This instance's Prometheus metrics, on a registry of its own. */
  metrics: GatehouseMetrics;
  /**
   * With METRICS_PORT set, the app serving `/metrics` (and nothing else) for a listener of its
   * own on `config.metrics` (main.ts starts it); null when /metrics is on the main app.
   */
  metricsApp: HttpApp | null;
  /**
   * The periodic purge of dead sessions, stale throttling rows and old audit events, started
   * here (every PURGE_INTERVAL_S; unref'd) and stopped by close(). `runOnce()` runs one cycle now.
   */
  purger: Purger;
  close(): Promise<void>;
}

/** Opens the store (migrating it), builds the container and the HTTP app of the configured transport. */
export async function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  const logger = options.logger ?? createLogger(options.config.logLevel);
  // Interpreter and provider settings are checked before the store opens, so a bad one fails fast.
  const metrics = new GatehouseMetrics();
  const sso = await createSsoParts(options.config, logger, {
    ...(options.oidcFetch ? { fetch: options.oidcFetch } : {}),
    observer: metrics.observeOpenIdCall,
  });
  const sqlClient = options.sqlClient ?? (await openSqlClient(options.config, logger));
  if (sqlClient instanceof PgSqlClient) metrics.watchPool(() => sqlClient.poolStats());
  const observedClient = metrics.observeSqlClient(sqlClient);
  const { store, database } = await openServiceStore(options.config, logger, {
    client: observedClient,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sessionStore ? { sessionSide: options.sessionStore } : {}),
  });
  const container = buildContainer({
    config: options.config,
    logger,
    store,
    sso,
    providerRegistry: new SqlProviderRegistry(observedClient, sso.sealer),
    metrics,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.passwordHasher ? { passwordHasher: options.passwordHasher } : {}),
    ...(options.loginEvents ? { loginEvents: options.loginEvents } : {}),
  });
  warnAboutConfiguration(options.config, logger);
  // Every enabled registered provider is loaded before the first request; a redirect URI the
  // environment shares with one stops the start-up here, naming it (RedirectUriCollisionError).
  const directory = container.get(TOKENS.ProviderDirectory);
  try {
    await directory.refresh();
  } catch (error) {
    await store.close();
    throw error;
  }
  for (const [id, error] of directory.failures()) {
    logger.error({ provider: id, err: error.message }, `provider "${id}" cannot be used: ${error.message}`);
  }
  const registryWatch = container.get(TOKENS.RegistryWatch);
  registryWatch.start();
  const authenticator = container.get(TOKENS.SessionAuthenticator);
  const purger = container.get(TOKENS.Purger);
  purger.start();
  const transport = options.config.http.transport;
  const proxy = { trustedProxyHops: options.config.http.trustedProxyHops };
  const app = await createHttpApp(transport, container.get(TOKENS.HttpCore), proxy);
  // METRICS_PORT: `/metrics` and nothing else (every other path is a 404 problem), so the scrape
  // port can be kept off the public network.
  const metricsApp =
    options.config.metrics.port === null
      ? null
      : await createHttpApp(
          transport,
          new HttpCore({
            logger,
            trustedOrigins: [],
            routes: metricsRoutes(metrics),
            authenticator,
            cookieName: options.config.cookie.name,
          }),
          proxy,
        );
  return {
    app,
    metrics,
    metricsApp,
    store,
    database,
    container,
    config: options.config,
    logger,
    authenticator,
    purger,
    close: async () => {
      await Promise.all([purger.stop(), registryWatch.stop()]);
      await store.close();
    },
  };
}
