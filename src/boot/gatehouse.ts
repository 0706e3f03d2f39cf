import type { Container } from 'inversify';
import type { HttpApp } from '../adapters/http/http-app.js';
import { HttpCore } from '../adapters/http/http-core.js';
import { createLogger, type Logger } from '../adapters/logging/logger.js';
import type { GatehouseMetrics } from '../adapters/metrics/gatehouse-metrics.js';
import { metricsRoutes } from '../adapters/metrics/metrics-routes.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import type { LoginEvents } from '../application/login-events.js';
import type { Purger } from '../application/purger.js';
import type { SessionAuthenticator } from '../application/session-authenticator.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { SessionSide } from '../domain/session-side.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Store } from '../domain/store.port.js';
import type { Config } from './config/config.js';
import { warnAboutConfiguration } from './configuration-warnings.js';
import { createHttpApp } from './http-transport.js';
import { openServiceContainer } from './service-container.js';
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

/**
 * An embedded Gatehouse. Everything in it is a port or a service object taken from its container;
 * no database type: the database is reached through `store`, as the service's own code reaches it.
 */
export interface Gatehouse {
  /** The API on the transport HTTP_TRANSPORT names (Koa or Fastify): serve it with `listen`. */
  app: HttpApp;
  /**
   * The store the service uses: users, directory and audit in the database, sessions and login
   * throttling where SESSION_STORE (or `sessionStore`) puts them.
   */
  store: Store;
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
export function createGatehouse(options: GatehouseOptions): Promise<Gatehouse> {
  return openGatehouse(options);
}

/**
 * `createGatehouse` over a database client already open: tests run two instances on one database
 * or start from a prepared copy. Not exported by the package (its facade names no database type).
 */
export async function createGatehouseOver(
  sqlClient: SqlClient,
  options: GatehouseOptions,
): Promise<Gatehouse> {
  return openGatehouse(options, sqlClient);
}

async function openGatehouse(options: GatehouseOptions, sqlClient?: SqlClient): Promise<Gatehouse> {
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
  });
  const store = container.get(TOKENS.Store);
  try {
    const logger = container.get(TOKENS.Logger);
    const metrics = container.get(TOKENS.Metrics);
    if (!metrics) throw new Error('createGatehouse: the container was built without metrics');
    warnAboutConfiguration(config, logger);
    // The device-proof key is read before the first request (and, with TOKEN_ENCRYPTION_KEY, sealed
    // where it lies): one this instance cannot open stops the start-up here, naming the variable.
    await container.get(TOKENS.DeviceProofKey).read();
    // Every enabled registered provider is loaded before the first request. One that cannot be
    // (secrets under another key, a redirect URI of OIDC_REDIRECT_URIS, an interpreter that fails
    // or never settles) is logged and refused alone: the service starts and serves the others.
    await container.get(TOKENS.ProviderDirectory).refresh();
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
    const registryWatch = container.get(TOKENS.RegistryWatch);
    registryWatch.start();
    const purger = container.get(TOKENS.Purger);
    purger.start();
    return {
      app,
      metrics,
      metricsApp,
      store,
      container,
      config,
      logger,
      authenticator,
      purger,
      close: async () => {
        await Promise.all([purger.stop(), registryWatch.stop()]);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
