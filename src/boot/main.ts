import cluster from 'node:cluster';
import { listen } from '../adapters/http/server.js';
import { createLogger, type Logger } from '../adapters/logging/logger.js';
import { bootstrapAdmin } from '../application/bootstrap-admin.js';
import { type AdminSocket, startAdminSocket } from '../cli/admin-socket-server.js';
import { announceBootstrapPassword } from './announce-bootstrap-password.js';
import { type Config, ConfigError, loadConfig, sessionStoreName } from './config/config.js';
import { createGatehouse, type Gatehouse } from './gatehouse.js';
import { TOKENS } from './tokens.js';

/** With BOOTSTRAP_ADMIN, creates the administrator on an empty database and prints its password once. */
async function bootstrapIfAsked(gatehouse: Gatehouse): Promise<void> {
  if (!gatehouse.config.bootstrapAdmin) return;
  const { container } = gatehouse;
  const password = await bootstrapAdmin({
    store: gatehouse.store,
    hasher: container.get(TOKENS.PasswordHasher),
    random: container.get(TOKENS.Random),
    clock: container.get(TOKENS.Clock),
  });
  if (password) {
    announceBootstrapPassword(password, {
      stdout: process.stdout,
      file: gatehouse.config.bootstrapPasswordFile,
    });
  }
}

/**
 * On the embedded database this process alone may open, the `gatehouse` command has this
 * service run it: the command's own code (imported at the first command), over this container.
 */
function openAdminSocket(gatehouse: Gatehouse, logger: Logger): Promise<AdminSocket | null> {
  const { config, container } = gatehouse;
  if (config.database.kind !== 'pglite') return Promise.resolve(null);
  return startAdminSocket({
    dataDir: config.database.dataDir,
    logger,
    run: async (request, io) => (await import('../cli/cli.js')).runForwarded(container, config, request, io),
  }).catch((error: unknown) => {
    // The service serves without it; a command then says the service does not answer.
    logger.warn(
      { event: 'admin_socket_unavailable', err: error instanceof Error ? error.message : String(error) },
      'no administration socket: gatehouse commands cannot reach this service',
    );
    return null;
  });
}

/**
 * WORKERS=n (n > 1, PostgreSQL only): this primary process migrates and bootstraps once, then runs
 * n worker processes that share the listening port (node:cluster) and nothing else but the store,
 * so a revocation is seen by all of them at once. A worker that dies is replaced; SIGTERM or
 * SIGINT drains every worker.
 */
async function supervise(config: Config, logger: Logger): Promise<void> {
  const setup = await createGatehouse({ config, logger });
  try {
    await bootstrapIfAsked(setup);
  } finally {
    await setup.close();
  }
  let stopping = false;
  const recentCrashes: number[] = [];
  const live = new Set<number>();
  const fork = () => {
    if (!stopping) live.add(cluster.fork().id);
  };
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker.id);
    if (stopping) {
      if (live.size === 0) process.exit(0);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
    const now = Date.now();
    recentCrashes.push(now);
    while (recentCrashes.length > 0 && recentCrashes[0]! < now - 60_000) recentCrashes.shift();
    if (recentCrashes.length > 2 * config.workers) {
      logger.fatal('workers keep exiting; stopping');
      process.exit(1);
    }
    setTimeout(fork, 1000).unref();
  });
  for (let i = 0; i < config.workers; i++) fork();
  logger.info(
    { workers: config.workers, pid: process.pid },
    `Gatehouse primary started ${config.workers} workers`,
  );
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping workers');
    if (live.size === 0) process.exit(0);
    for (const id of live) cluster.workers?.[id]?.process.kill('SIGTERM');
    setTimeout(() => process.exit(1), config.http.shutdownGraceMs + 5000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** The service: `npm start`, `gatehouse serve` and dist/src/start.cjs come here (through src/main.ts). */
export async function runService(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  if (config.workers > 1 && cluster.isPrimary) return supervise(config, logger);
  const gatehouse = await createGatehouse({ config, logger });
  // In WORKERS mode the primary has bootstrapped already.
  if (!cluster.isWorker) await bootstrapIfAsked(gatehouse);
  // An unknown user's login verifies a dummy hash: made now, the first such login costs (and shows
  // by its timing) no extra hash.
  const hasher = gatehouse.container.get(TOKENS.PasswordHasher);
  if ('warmUp' in hasher && typeof hasher.warmUp === 'function') await hasher.warmUp();

  const adminSocket = await openAdminSocket(gatehouse, logger);
  const running = await listen(gatehouse.app, config.http.port, config.http.host, config.http);
  logger.info(
    {
      url: running.url,
      store: config.database.kind,
      session_store: sessionStoreName(config),
      ...(config.sessionStore.kind === 'module'
        ? { session_store_module: config.sessionStore.specifier }
        : {}),
      transport: gatehouse.app.transport,
      sso: config.oidc ? 'on' : 'off',
      // libuv's pool, on which the password hashes run (set by start.cts unless given).
      hashing_threads: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
    },
    `Gatehouse listening on ${running.url}`,
  );
  const metricsServer =
    gatehouse.metricsApp && config.metrics.port !== null
      ? await listen(gatehouse.metricsApp, config.metrics.port, config.metrics.host, config.http)
      : null;
  if (metricsServer) logger.info({ url: metricsServer.url }, `metrics on ${metricsServer.url}/metrics`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    await Promise.all([
      running.close(config.http.shutdownGraceMs),
      metricsServer?.close(1000),
      adminSocket?.close(),
    ]);
    await gatehouse.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Runs the service; a failure to start is one line on standard error and exit status 1. */
export function startService(): void {
  runService().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      process.stderr.write(
        `Gatehouse failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
    process.exit(1);
  });
}
