import { listen } from './adapters/http/server.js';
import { createLogger } from './adapters/logging/logger.js';
import { BOOTSTRAP_ADMIN_USERNAME, bootstrapAdmin } from './application/bootstrap-admin.js';
import { TOKENS } from './composition/tokens.js';
import { ConfigError, loadConfig } from './config/config.js';
import { createGatehouse } from './gatehouse.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const gatehouse = await createGatehouse({ config, logger });
  const { container } = gatehouse;

  if (config.bootstrapAdmin) {
    const password = await bootstrapAdmin({
      store: gatehouse.store,
      hasher: container.get(TOKENS.PasswordHasher),
      random: container.get(TOKENS.Random),
      clock: container.get(TOKENS.Clock),
    });
    if (password) {
      // Printed once, on stdout, outside the JSON log stream; it must be changed at first login.
      process.stdout.write(
        `\nGatehouse created the system administrator "${BOOTSTRAP_ADMIN_USERNAME}".\n` +
          `  one-time password: ${password}\n` +
          '  It is expired: log in, then change it with POST /api/v1/password/.\n\n',
      );
    }
  }

  const running = await listen(gatehouse.app, config.http.port, config.http.host);
  logger.info(
    { url: running.url, store: config.database.kind, sso: config.oidc ? 'on' : 'off' },
    `Gatehouse listening on ${running.url}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    await running.close(config.http.shutdownGraceMs);
    await gatehouse.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Gatehouse failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  process.exit(1);
});
