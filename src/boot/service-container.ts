import type { Container } from 'inversify';
import type { Logger } from '../adapters/logging/logger.js';
import type { PgSqlClient } from '../adapters/sql/pg-sql-client.js';
import type { SqlClient } from '../adapters/sql/sql-client.js';
import { SqlProviderRegistry } from '../adapters/sql/sql-provider-registry.js';
import type { SqlStore } from '../adapters/sql/sql-store.js';
import type { LoginEvents } from '../application/login-events.js';
import type { PasswordHasher } from '../domain/password/password-hasher.port.js';
import type { SessionSide } from '../domain/session/session-side.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Config } from './config/config.js';
import { buildContainer } from './container.js';
import { openServiceStore } from './open-service-store.js';
import { openSqlClient } from './open-store.js';
import type { ServiceRole } from './service-role.js';
import { createSsoParts } from './sso-module.js';
import { tokenSealerFor } from './token-sealer-for.js';
import { tracingWanted } from './tracing.js';

export interface ServiceContainerOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  random?: Random;
  passwordHasher?: PasswordHasher;
  loginEvents?: LoginEvents;
  /** An already-open database client; otherwise opened from the configuration. */
  sqlClient?: SqlClient;
  /** A session store in place of the one SESSION_STORE names (an embedder's own). */
  sessionSide?: SessionSide;
  /**
   * What only an instance that serves requests needs: this instance's metrics and the OpenID
   * provider's parts (`oidcFetch` replaces their network `fetch`). The `gatehouse` command runs
   * without them.
   */
  serving?: { oidcFetch?: typeof fetch };
  /** Which process the container serves (its lifecycle's steps); default: an embedder's. */
  role?: ServiceRole;
}

export interface ServiceContainer {
  container: Container;
  /** The database under the store (the command's provider registry reads it). */
  database: SqlStore;
  /** Migrations applied while opening. */
  applied: string[];
}

/**
 * The one wiring room's entrance: opens the store where the configuration says (migrating the
 * database) and builds the container over it. The service (through the embedding facade) and the
 * `gatehouse` command both start here, so they run the same use cases on the same stores; every
 * object they use comes out of the container.
 */
export async function openServiceContainer(options: ServiceContainerOptions): Promise<ServiceContainer> {
  const { config, logger } = options;
  // Spans only when an OTEL_* variable asks for them: otherwise nothing of tracing is loaded.
  const tracing = tracingWanted(process.env) ? await import('./traced-container.js') : null;
  // Metrics and the OpenID client are loaded only to serve: a command does without their modules.
  const metrics = options.serving
    ? new (await import('../adapters/metrics/gatehouse-metrics.js')).GatehouseMetrics()
    : null;
  // Interpreter and provider settings are checked before the store opens, so a bad one fails fast.
  const sso =
    options.serving && metrics
      ? await createSsoParts(config, logger, {
          ...(options.serving.oidcFetch ? { fetch: options.serving.oidcFetch } : {}),
          ...(tracing ? { fetchFor: tracing.providerFetchFor } : {}),
          observer: metrics.observeOpenIdCall,
          keyObserverFor: (provider) => metrics.keyUseOf(provider),
        })
      : null;
  const sqlClient = options.sqlClient ?? (await openSqlClient(config, logger));
  if (metrics && sqlClient.kind === 'postgres') {
    const pool = sqlClient as PgSqlClient;
    metrics.watchPool(() => pool.poolStats());
  }
  const client = metrics ? metrics.observeSqlClient(sqlClient) : sqlClient;
  const { store, database, applied } = await openServiceStore(config, logger, {
    client,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sessionSide ? { sessionSide: options.sessionSide } : {}),
  });
  try {
    const container = buildContainer({
      config,
      logger,
      store,
      ...(options.sessionSide ? { sessionStoreName: 'module' as const } : {}),
      ...(sso ? { sso } : {}),
      // Served where the OpenID parts are, managed by the command; secrets sealed under
      // TOKEN_ENCRYPTION_KEY (without it nothing is sealed: adding is refused, naming it).
      providerRegistry: new SqlProviderRegistry(client, sso?.sealer ?? tokenSealerFor(config)),
      metrics,
      ...(options.role ? { role: options.role } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.passwordHasher ? { passwordHasher: options.passwordHasher } : {}),
      ...(options.loginEvents ? { loginEvents: options.loginEvents } : {}),
    });
    tracing?.traceContainer(container);
    return { container, database, applied };
  } catch (error) {
    await store.close();
    throw error;
  }
}
