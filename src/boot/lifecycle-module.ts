import cluster from 'node:cluster';
import { ContainerModule, type ResolutionContext } from 'inversify';
import { listen, type RunningServer } from '../adapters/http/server.js';
import { bootstrapAdmin } from '../application/bootstrap-admin.js';
import { type AdminSocket, startAdminSocket } from '../cli/admin-socket-server.js';
import { announceBootstrapPassword } from './announce-bootstrap-password.js';
import { type Config, sessionStoreName } from './config/config.js';
import { warnAboutConfiguration } from './configuration-warnings.js';
import { Lifecycle, type LifecycleStep } from './lifecycle.js';
import { TOKENS } from './tokens.js';

/**
 * Steps every Gatehouse runs, embedded or not: the store (opened before the container, closed
 * last), the warnings about weak settings, the device-proof key, the providers, the purge.
 */
function coreSteps(context: ResolutionContext, config: Config): LifecycleStep[] {
  const logger = context.get(TOKENS.Logger);
  const store = context.get(TOKENS.Store);
  const registryWatch = context.get(TOKENS.RegistryWatch);
  const purger = context.get(TOKENS.Purger);
  const deviceProofKey = context.get(TOKENS.DeviceProofKey);
  const recoveryCodeKey = context.get(TOKENS.RecoveryCodeKey);
  const providerDirectory = context.get(TOKENS.ProviderDirectory);
  return [
    { name: 'store', stop: () => store.close() },
    { name: 'configuration warnings', start: () => warnAboutConfiguration(config, logger) },
    {
      // Read before the first request (and, with TOKEN_ENCRYPTION_KEY, sealed where it lies): one
      // this instance cannot open stops the start-up here, naming the variable.
      name: 'device-proof and recovery-code keys',
      start: async () => {
        await deviceProofKey.read();
        await recoveryCodeKey.read();
      },
    },
    {
      // Every enabled registered provider is loaded before the first request. One that cannot be
      // (secrets under another key, a redirect URI of OIDC_REDIRECT_URIS, an interpreter that
      // fails or never settles) is logged and refused alone: the service serves the others.
      name: 'provider directory',
      start: () => providerDirectory.refresh(),
    },
    { name: 'registry watch', start: () => registryWatch.start(), stop: () => registryWatch.stop() },
    // Every PURGE_INTERVAL_S (unref'd): dead sessions, stale throttling rows, old audit events.
    { name: 'purger', start: () => purger.start(), stop: () => purger.stop() },
  ];
}

/** With BOOTSTRAP_ADMIN, creates the administrator on an empty database and prints its password once. */
function bootstrapStep(context: ResolutionContext, config: Config): LifecycleStep {
  const deps = {
    store: context.get(TOKENS.Store),
    hasher: context.get(TOKENS.PasswordHasher),
    random: context.get(TOKENS.Random),
    clock: context.get(TOKENS.Clock),
  };
  return {
    name: 'bootstrap administrator',
    start: async () => {
      if (!config.bootstrapAdmin) return;
      const password = await bootstrapAdmin(deps);
      if (password) {
        announceBootstrapPassword(password, { stdout: process.stdout, file: config.bootstrapPasswordFile });
      }
    },
  };
}

/**
 * What only the service process does: warm the hasher up, open the administration socket (the
 * embedded database), listen on the API port, then on the metrics port.
 */
function serviceSteps(
  context: ResolutionContext,
  config: Config,
  runCommand: Parameters<typeof startAdminSocket>[0]['run'],
): LifecycleStep[] {
  const logger = context.get(TOKENS.Logger);
  const hasher = context.get(TOKENS.PasswordHasher);
  const { app, metricsApp } = context.get(TOKENS.HttpApps);
  let adminSocket: AdminSocket | null = null;
  let running: RunningServer | null = null;
  let metricsServer: RunningServer | null = null;
  return [
    {
      // An unknown user's login verifies a dummy hash: made now, the first such login costs (and
      // shows by its timing) no extra hash.
      name: 'password hasher warm-up',
      start: async () => {
        if ('warmUp' in hasher && typeof hasher.warmUp === 'function') await hasher.warmUp();
      },
    },
    {
      // On the embedded database this process alone may open, the `gatehouse` command has this
      // service run it: the command's own code, over this container.
      name: 'administration socket',
      start: async () => {
        if (config.database.kind !== 'pglite') return;
        adminSocket = await startAdminSocket({
          dataDir: config.database.dataDir,
          logger,
          run: runCommand,
        }).catch((error: unknown) => {
          // The service serves without it; a command then says the service does not answer.
          logger.warn(
            {
              event: 'admin_socket_unavailable',
              err: error instanceof Error ? error.message : String(error),
            },
            'no administration socket: gatehouse commands cannot reach this service',
          );
          return null;
        });
      },
      stop: () => adminSocket?.close(),
    },
    {
      // The API, then /metrics on a port of its own (METRICS_PORT); on stop both drain together.
      name: 'listeners',
      start: async () => {
        running = await listen(app, config.http.port, config.http.host, config.http);
        logger.info(
          {
            url: running.url,
            store: config.database.kind,
            session_store: sessionStoreName(config),
            ...(config.sessionStore.kind === 'module'
              ? { session_store_module: config.sessionStore.specifier }
              : {}),
            transport: app.transport,
            sso: config.oidc ? 'on' : 'off',
            // libuv's pool, on which the password hashes run (set by start.cts unless given).
            hashing_threads: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
          },
          `Gatehouse listening on ${running.url}`,
        );
        if (metricsApp && config.metrics.port !== null) {
          metricsServer = await listen(metricsApp, config.metrics.port, config.metrics.host, config.http);
          logger.info({ url: metricsServer.url }, `metrics on ${metricsServer.url}/metrics`);
        }
      },
      stop: async () => {
        await Promise.all([running?.close(config.http.shutdownGraceMs), metricsServer?.close(1000)]);
      },
    },
  ];
}

/**
 * Start-up and shutdown work, one list for the service, `gatehouse serve` (which runs the
 * service) and an embedder's facade: which steps a process runs follows its role.
 */
export const lifecycleModule = new ContainerModule(({ bind }) => {
  bind(TOKENS.Lifecycle)
    .toDynamicValue((context) => {
      const config = context.get(TOKENS.Config);
      const role = context.get(TOKENS.ServiceRole);
      const steps = coreSteps(context, config);
      if (role.kind === 'setup') steps.push(bootstrapStep(context, config));
      if (role.kind === 'service') {
        // In WORKERS mode the primary has bootstrapped already.
        if (role.bootstrap && !cluster.isWorker) steps.push(bootstrapStep(context, config));
        steps.push(...serviceSteps(context, config, role.runCommand));
      }
      return new Lifecycle(steps);
    })
    .inSingletonScope();
});
