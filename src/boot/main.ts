import cluster from 'node:cluster';
import { createLogger, type Logger } from '../adapters/logging/logger.js';
import { commandPartsOf } from './command-parts.js';
import { type Config, ConfigError, loadConfig } from './config/config.js';
import { openServiceGatehouse } from './gatehouse.js';
import { flushTracing } from './tracing.js';

/**
 * WORKERS=n (n > 1, PostgreSQL only): this primary process migrates and bootstraps once, then runs
 * n worker processes that share the listening port (node:cluster) and nothing else but the store,
 * so a revocation is seen by all of them at once. A worker that dies is replaced; SIGTERM or
 * SIGINT drains every worker.
 */
async function supervise(config: Config, logger: Logger): Promise<void> {
  const setup = await openServiceGatehouse({ config, logger }, { kind: 'setup' });
  await setup.close();
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

/**
 * The service: `npm start`, `gatehouse serve` and dist/src/start.cjs come here (through
 * src/main.ts). Its start-up and shutdown are the container's lifecycle (lifecycle-module.ts).
 */
export async function runService(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  if (config.workers > 1 && cluster.isPrimary) return supervise(config, logger);
  // A forwarded `gatehouse` command runs the command's own code (imported at the first command)
  // over this service's container.
  let commandParts: ReturnType<typeof commandPartsOf> | null = null;
  const gatehouse = await openServiceGatehouse(
    { config, logger },
    {
      kind: 'service',
      bootstrap: true,
      runCommand: async (request, io) => {
        commandParts ??= commandPartsOf(gatehouse.container, config, []);
        return (await import('../cli/cli.js')).runForwarded(commandParts, request, io);
      },
    },
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    await gatehouse.close();
    // The last spans go to the collector before the process ends (nothing when tracing is off).
    await flushTracing();
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
