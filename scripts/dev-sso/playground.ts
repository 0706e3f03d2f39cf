/**
 * The single sign-on playground behind `npm run dev:sso`, also started by the browser test
 * (test/browser/sso-portal.test.ts) on random ports:
 *
 * - a local OpenID provider: oidc-provider through test/support/oidc/test-provider.ts, with demo
 *   accounts and its built-in (development) login page;
 * - Gatehouse (createGatehouse + listen) on embedded PGlite, configured against that provider,
 *   with a demo tenant, group and users;
 * - a demo portal (served here, not by Gatehouse) that performs step 1 in the browser and
 *   reverse-proxies /api/* to Gatehouse, so the session cookie is first-party.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { loadConfig } from '../../src/config/config.js';
import { EMPTY_ATTRIBUTES, type UserAttributes, type UserLevel } from '../../src/domain/user/user.js';
import { createGatehouse, type Gatehouse } from '../../src/gatehouse.js';
import { startTestProvider, type TestProvider } from '../../test/support/oidc/test-provider.js';
import { PORTAL_HTML, PORTAL_JS, type PortalConfig } from './portal-page.js';

export const DEFAULT_PORTS = { portal: 3000, provider: 9090, gatehouse: 8080 } as const;
export const PORTAL_SCOPE = 'openid profile offline_access';

export interface DemoUser {
  username: string;
  userLevel: UserLevel;
  groupId: string;
  attributes: Partial<UserAttributes>;
  /** Claims the provider releases for the account of the same id. */
  claims: Record<string, unknown>;
  /** What happens when this account signs in at the portal. */
  outcome: string;
}

export const DEMO_TENANT = { id: 't1', name: 'Acme (demo)' };
export const DEMO_GROUP = { id: 'g1', name: 'Sales (demo)' };

export const DEMO_USERS: readonly DemoUser[] = [
  {
    username: 'gina',
    userLevel: 8,
    groupId: 'g1',
    attributes: { firstName: 'Gina', lastName: 'Admin', emailAddress: 'gina@example.test', language: 'en' },
    claims: {
      preferred_username: 'gina',
      groups: ['g1'],
      given_name: 'Gina',
      family_name: 'Admin',
      email: 'gina@example.test',
    },
    outcome: 'group admin of group g1 (tenant t1): signs in, the portal shows ids and profile',
  },
  {
    username: 'eve',
    userLevel: 0,
    groupId: 'g1',
    attributes: { firstName: 'Eve' },
    claims: { preferred_username: 'eve', groups: ['g1'] },
    outcome: 'end user (level 0), not in SSO_USER_LEVELS=8: refused with SSO_INVALID_GROUPID_AND_USERNAME',
  },
  {
    username: 'bob',
    userLevel: 8,
    groupId: 'g1',
    attributes: { firstName: 'Bob' },
    claims: { preferred_username: 'bob', groups: ['g1', 'g2'] },
    outcome: 'the provider sends two groups: refused with SSO_MULTI_GROUPS',
  },
];

export interface PlaygroundOptions {
  /**
   * Ports of the portal, the provider and Gatehouse; `0` puts all three on random free ports.
   * Default DEFAULT_PORTS.
   */
  ports?: 0 | { portal?: number; provider?: number; gatehouse?: number };
  /** Embedded database folder; default a new temporary folder, deleted by close(). */
  dataDir?: string;
  /** Gatehouse log level (JSON lines on stdout). Default 'warn'. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Further Gatehouse environment (e.g. TOKEN_ENCRYPTION_KEY, SSO_TOKEN_INTERPRETER). */
  env?: Record<string, string>;
}

export interface Playground {
  /** Open this in a browser: http://localhost:<port>. */
  portalUrl: string;
  redirectUri: string;
  providerIssuer: string;
  gatehouseUrl: string;
  dataDir: string;
  temporaryDataDir: boolean;
  provider: TestProvider;
  gatehouse: Gatehouse;
  /** The text `npm run dev:sso` prints. */
  instructions(): string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/** Forwards the request to Gatehouse as is (cookies included) and streams the answer back. */
function proxy(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers.host = target.host;
  headers['x-forwarded-host'] = req.headers.host ?? '';
  headers['x-forwarded-proto'] = 'http';
  const upstream = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
    (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ title: 'Gatehouse is not reachable from the portal', status: 502 }));
    } else {
      res.destroy();
    }
  });
  req.pipe(upstream);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    // The authorization code arrives in the callback URL: never send it on as a Referer.
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy':
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  });
  res.end(body);
}

async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  return (server.address() as AddressInfo).port;
}

async function seedDemoDirectory(gatehouse: Gatehouse): Promise<void> {
  const { store } = gatehouse;
  const ignoreConflict = (error: unknown) => {
    // A kept data directory (DEV_SSO_DATA_DIR) already has the demo rows.
    if ((error as { code?: string }).code !== 'CONFLICT') throw error;
  };
  await store.directory.addTenant(DEMO_TENANT.id, DEMO_TENANT.name).catch(ignoreConflict);
  await store.directory.addGroup(DEMO_GROUP.id, DEMO_TENANT.id, DEMO_GROUP.name).catch(ignoreConflict);
  for (const user of DEMO_USERS) {
    await store.users
      .create(
        {
          ...EMPTY_ATTRIBUTES,
          ...user.attributes,
          userId: `u-${user.username}`,
          username: user.username,
          userLevel: user.userLevel,
          tenantId: DEMO_TENANT.id,
          groupId: user.groupId,
          backendName: null,
          // Single sign-on only: no password.
          passwordHash: null,
          mustChangePassword: false,
        },
        new Date(),
      )
      .catch(ignoreConflict);
  }
}

export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const ports =
    options.ports === 0 ? { portal: 0, provider: 0, gatehouse: 0 } : { ...DEFAULT_PORTS, ...options.ports };
  const temporaryDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir
    ? resolve(options.dataDir)
    : mkdtempSync(join(tmpdir(), 'gatehouse-dev-sso-'));

  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step();
      } catch {
        // Keep closing the rest.
      }
    }
    cleanups.length = 0;
  };
  if (temporaryDataDir) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

  try {
    // 1. The portal first: its origin is the redirect URI the provider and Gatehouse must know.
    let gatehouseTarget: URL | undefined;
    let portalConfig: PortalConfig | undefined;
    const portal = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://portal.invalid').pathname;
      if (path.startsWith('/api/')) {
        if (!gatehouseTarget) return send(res, 503, 'text/plain', 'Gatehouse is starting.');
        return proxy(req, res, gatehouseTarget);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only.');
      if (path === '/' || path === '/callback')
        return send(res, 200, 'text/html; charset=utf-8', PORTAL_HTML);
      if (path === '/portal.js') return send(res, 200, 'text/javascript; charset=utf-8', PORTAL_JS);
      if (path === '/portal-config.json' && portalConfig) {
        return send(res, 200, 'application/json', JSON.stringify(portalConfig));
      }
      return send(res, 404, 'text/plain', 'Not found.');
    });
    const portalPort = await listenOn(portal, ports.portal, '127.0.0.1');
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          portal.close(() => done());
          portal.closeAllConnections();
        }),
    );
    // Chromium treats http://localhost as a secure context: WebCrypto works, Secure cookies stick.
    const portalUrl = `http://localhost:${portalPort}`;
    const redirectUri = `${portalUrl}/callback`;

    // 2. The OpenID provider, with the demo accounts and the portal's redirect URI.
    const provider = await startTestProvider({
      port: ports.provider,
      redirectUris: [redirectUri],
      accounts: Object.fromEntries(DEMO_USERS.map((user) => [user.username, user.claims])),
    });
    cleanups.push(() => provider.close());
    const metadata = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as {
      authorization_endpoint: string;
    };

    // 3. Gatehouse against that provider, on embedded PGlite.
    const { gatehouse: client } = provider.clients;
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: String(ports.gatehouse),
      DATA_DIR: dataDir,
      LOG_LEVEL: options.logLevel ?? 'warn',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: client.clientId,
      OIDC_CLIENT_SECRET: client.clientSecret!,
      OIDC_REDIRECT_URIS: redirectUri,
      OIDC_ALLOW_INSECURE_HTTP: 'true',
      // The browser's Origin is the portal's; the proxy hands the request to Gatehouse's own host.
      TRUSTED_ORIGINS: portalUrl,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...options.env,
    });
    const gatehouse = await createGatehouse({ config, logger: createLogger(config.logLevel) });
    cleanups.push(() => gatehouse.close());
    await seedDemoDirectory(gatehouse);
    const running: RunningServer = await listen(gatehouse.app, config.http.port, config.http.host);
    cleanups.push(() => running.close(1000));

    gatehouseTarget = new URL(running.url);
    portalConfig = {
      issuer: provider.issuer,
      authorizationEndpoint: metadata.authorization_endpoint,
      clientId: client.clientId,
      redirectUri,
      scope: PORTAL_SCOPE,
    };

    const playground: Playground = {
      portalUrl,
      redirectUri,
      providerIssuer: provider.issuer,
      gatehouseUrl: running.url,
      dataDir,
      temporaryDataDir,
      provider,
      gatehouse,
      instructions: () => instructionsText(playground),
      close: cleanup,
    };
    return playground;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

export function instructionsText(
  p: Pick<
    Playground,
    'portalUrl' | 'providerIssuer' | 'gatehouseUrl' | 'dataDir' | 'temporaryDataDir' | 'redirectUri'
  >,
): string {
  const width = Math.max('other'.length, ...DEMO_USERS.map((user) => user.username.length));
  return [
    '',
    'Gatehouse single sign-on playground',
    '',
    `  Portal (open this)  ${p.portalUrl}`,
    `  OpenID provider     ${p.providerIssuer}  (oidc-provider, development login page)`,
    `  Gatehouse           ${p.gatehouseUrl}  (the portal proxies ${p.portalUrl}/api/* to it)`,
    `  Database            PGlite in ${p.dataDir}${p.temporaryDataDir ? ' (deleted on exit)' : ''}`,
    '',
    'Click "Sign in" on the portal. The provider\'s development login page accepts ANY password for',
    'an existing account id: the login name picks the account. Then click "Continue" on its consent',
    'page (the portal asks for offline_access, so logout has a refresh token to revoke).',
    '',
    ...DEMO_USERS.map((user) => `  ${user.username.padEnd(width)}  ${user.outcome}`),
    `  ${'other'.padEnd(width)}  an unknown account id has no claims: refused with SSO_INVALID_USERNAME`,
    '',
    'The portal then shows the ids and profile Gatehouse answered; "Logout" calls',
    'POST /api/v1/openid/logout/ (ends the session, revokes the tokens at the provider).',
    '',
    `Redirect URI (registered at the provider, in OIDC_REDIRECT_URIS): ${p.redirectUri}`,
    'Ports: DEV_SSO_PORTAL_PORT, DEV_SSO_PROVIDER_PORT, DEV_SSO_GATEHOUSE_PORT (0 = random).',
    'Keep the database between runs: DEV_SSO_DATA_DIR=./data-dev-sso. Ctrl+C stops everything.',
    '',
  ].join('\n');
}
