/**
 * `npm run dev:sso`: two customers' OpenID providers (Acme and Globex), Gatehouse with both in its
 * provider registry, and a demo portal, all in this process (see scripts/dev-sso/playground.ts).
 * The portal also has a password user (dana) for second factors, passkeys and a Billing page that
 * demands step-up (docs/mfa-playground.md).
 * Development only: the providers accept any password and everything speaks plain http on the
 * loopback interface.
 *
 * Environment: DEV_SSO_PORTAL_PORT (3000), DEV_SSO_GATEHOUSE_PORT (8080), DEV_SSO_ACME_PORT (9090),
 * DEV_SSO_GLOBEX_PORT (9091), DEV_SSO_DATA_DIR (default: a temporary folder deleted on exit),
 * LOG_LEVEL (warn), TOKEN_ENCRYPTION_KEY, SSO_INTERPRETERS (an `acme=` entry replaces Acme's
 * interpreter), SSO_USERNAME_CLAIM, SSO_GROUP_CLAIM, SSO_USER_LEVELS.
 */
import { DEFAULT_PORTS, type PlaygroundOptions, startPlayground } from './dev-sso/playground.js';

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new Error(`${name}: must be a port number (0 for a random one), got "${raw}"`);
  }
  return value;
}

async function main(): Promise<void> {
  const passThrough: Record<string, string> = {};
  for (const name of [
    'TOKEN_ENCRYPTION_KEY',
    'SSO_INTERPRETERS',
    'SSO_USERNAME_CLAIM',
    'SSO_GROUP_CLAIM',
    'SSO_USER_LEVELS',
  ]) {
    const value = process.env[name];
    if (value) passThrough[name] = value;
  }
  const logLevel = (process.env.LOG_LEVEL || 'warn') as NonNullable<PlaygroundOptions['logLevel']>;
  const playground = await startPlayground({
    ports: {
      portal: port('DEV_SSO_PORTAL_PORT', DEFAULT_PORTS.portal),
      gatehouse: port('DEV_SSO_GATEHOUSE_PORT', DEFAULT_PORTS.gatehouse),
      acme: port('DEV_SSO_ACME_PORT', DEFAULT_PORTS.acme),
      globex: port('DEV_SSO_GLOBEX_PORT', DEFAULT_PORTS.globex),
    },
    ...(process.env.DEV_SSO_DATA_DIR ? { dataDir: process.env.DEV_SSO_DATA_DIR } : {}),
    logLevel,
    env: passThrough,
  });
  process.stdout.write(playground.instructions());

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nStopping the playground...\n');
    await playground.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const inUse = (error as { code?: string }).code === 'EADDRINUSE';
  process.stderr.write(
    `dev:sso failed to start: ${message}\n` +
      (inUse
        ? 'A port is taken: set DEV_SSO_PORTAL_PORT / DEV_SSO_GATEHOUSE_PORT / DEV_SSO_ACME_PORT / DEV_SSO_GLOBEX_PORT.\n'
        : ''),
  );
  process.exit(1);
});
