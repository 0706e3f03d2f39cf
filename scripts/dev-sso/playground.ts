/**
 * The single sign-on playground behind `npm run dev:sso`, also started by the browser test
 * (test/browser/sso-portal.test.ts) on random ports:
 *
 * - two customers' OpenID providers side by side (scripts/dev-sso/customers.ts): Acme and Globex,
 *   each an oidc-provider (test/support/oidc/test-provider.ts) with its own issuer, keys, accounts
 *   and built-in (development) login page;
 * - Gatehouse (createGatehouse + listen) on embedded PGlite, with no provider in its environment:
 *   both customers' providers are registered in its registry (as `gatehouse provider add` would),
 *   each limited to its customer's tenant and read by its own interpreter;
 * - a demo portal (served here, not by Gatehouse) offering "Log in with Acme" and "Log in with
 *   Globex": it performs step 1 in the browser with that customer's redirect URI (which is how
 *   Gatehouse selects the provider) and reverse-proxies /api/* to Gatehouse, so the session
 *   cookie is first-party;
 * - a password user (password-user.ts) for the portal's Security part: an authenticator app,
 *   passkeys (relying party `localhost`, the portal's origin trusted), passkey login, and a Billing
 *   page that demands step-up through the forward-auth check (billing-gate.ts). TOTP secrets are
 *   sealed with the same generated TOKEN_ENCRYPTION_KEY as the registry's secrets.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { listen, type RunningServer } from '../../src/adapters/http/server.js';
import { createLogger } from '../../src/adapters/logging/logger.js';
import { loadConfig } from '../../src/boot/config/config.js';
import { type ServiceGatehouse as Gatehouse, openServiceGatehouse } from '../../src/boot/gatehouse.js';
import { TOKENS } from '../../src/boot/tokens.js';
import { startTestProvider, type TestProvider } from '../../test/support/oidc/test-provider.js';
import { billingAnswer } from './billing-gate.js';
import { ACME_INTERPRETER_MODULE, DEMO_CUSTOMERS, type DemoCustomer } from './customers.js';
import { adminProviders, registerCustomerProvider, seedCustomerDirectory } from './demo-setup.js';
import { DANA, seedPasswordUser } from './password-user.js';
import { PORTAL_HTML, PORTAL_SCRIPTS, type PortalConfig } from './portal-page.js';
import { otpauthQrCode } from './qr-code.js';

export const DEFAULT_PORTS = { portal: 3000, gatehouse: 8080, acme: 9090, globex: 9091 } as const;
export const PORTAL_SCOPE = 'openid profile offline_access';

export type PlaygroundPorts = { [name in keyof typeof DEFAULT_PORTS]: number };

export interface PlaygroundOptions {
  /**
   * Ports of the portal, Gatehouse and each customer's provider; `0` puts them all on random free
   * ports. Default DEFAULT_PORTS.
   */
  ports?: 0 | Partial<PlaygroundPorts>;
  /** Kept between runs: the embedded database and the key sealing the registry's secrets. Default a new temporary folder, deleted by close(). */
  dataDir?: string;
  /** Gatehouse log level (JSON lines on stdout). Default 'warn'. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Further Gatehouse environment (e.g. TOKEN_ENCRYPTION_KEY, SSO_INTERPRETERS, SSO_USER_LEVELS). */
  env?: Record<string, string>;
}

/** One customer's provider as it runs in the playground. */
export interface PlaygroundCustomer {
  customer: DemoCustomer;
  provider: TestProvider;
  issuer: string;
  /** The portal's callback for this customer: registered at its provider and in Gatehouse's registry. */
  redirectUri: string;
}

export interface Playground {
  /** Open this in a browser: http://localhost:<port>. */
  portalUrl: string;
  gatehouseUrl: string;
  /** By customer (= registered provider) id: `acme`, `globex`. */
  customers: Readonly<Record<string, PlaygroundCustomer>>;
  dataDir: string;
  temporaryDataDir: boolean;
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

/**
 * The key that seals the registry's secrets. A kept data directory keeps its key next to the
 * database: secrets sealed in one run must open in the next.
 */
function tokenEncryptionKey(dataDir: string, temporary: boolean): string {
  const fresh = () => randomBytes(32).toString('base64');
  if (temporary) return fresh();
  const file = join(dataDir, 'token-encryption-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = fresh();
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Acme's interpreter is the example package, unless SSO_INTERPRETERS names an `acme` of its own. */
function interpreterMap(given: string | undefined): string {
  const entries = (given ?? '').split(',').filter((entry) => entry.trim() !== '');
  if (!entries.some((entry) => entry.trim().startsWith('acme=')))
    entries.push(`acme=${ACME_INTERPRETER_MODULE}`);
  return entries.join(',');
}

export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const ports: PlaygroundPorts =
    options.ports === 0
      ? { portal: 0, gatehouse: 0, acme: 0, globex: 0 }
      : { ...DEFAULT_PORTS, ...options.ports };
  const temporaryDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir
    ? resolve(options.dataDir)
    : mkdtempSync(join(tmpdir(), 'gatehouse-dev-sso-'));
  mkdirSync(dataDir, { recursive: true });

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
    // 1. The portal first: its origin makes the redirect URIs the providers and Gatehouse must know.
    let gatehouseTarget: URL | undefined;
    let portalConfig: PortalConfig | undefined;
    const callbacks = new Set(DEMO_CUSTOMERS.map((customer) => `/callback/${customer.id}`));
    const portal = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://portal.invalid').pathname;
      if (path.startsWith('/api/')) {
        if (!gatehouseTarget) return send(res, 503, 'text/plain', 'Gatehouse is starting.');
        return proxy(req, res, gatehouseTarget);
      }
      if (path === '/portal/qr' && req.method === 'POST') {
        return void otpauthQrCode(req).then(
          (answer) =>
            answer.status === 200
              ? send(res, 200, 'image/svg+xml', answer.svg)
              : send(res, answer.status, 'text/plain', answer.message),
          () => send(res, 500, 'text/plain', 'The QR code could not be drawn.'),
        );
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only.');
      if (path === '/portal/billing') {
        if (!gatehouseTarget) return send(res, 503, 'text/plain', 'Gatehouse is starting.');
        return void billingAnswer(req, gatehouseTarget).then((answer) =>
          send(res, answer.status, answer.type, answer.body),
        );
      }
      if (path === '/' || path === '/billing' || callbacks.has(path)) {
        return send(res, 200, 'text/html; charset=utf-8', PORTAL_HTML);
      }
      const script = PORTAL_SCRIPTS[path];
      if (script !== undefined) return send(res, 200, 'text/javascript; charset=utf-8', script);
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

    // 2. Each customer's OpenID provider: its own issuer, keys and accounts, and its own redirect URI.
    const customers: Record<string, PlaygroundCustomer> = {};
    for (const customer of DEMO_CUSTOMERS) {
      const redirectUri = `${portalUrl}/callback/${customer.id}`;
      const provider = await startTestProvider({
        port: ports[customer.id as 'acme' | 'globex'],
        redirectUris: [redirectUri],
        signingAlg: customer.idTokenAlg,
        accounts: Object.fromEntries(customer.accounts.map((account) => [account.login, account.claims])),
      });
      cleanups.push(() => provider.close());
      customers[customer.id] = { customer, provider, issuer: provider.issuer, redirectUri };
    }

    // 3. Gatehouse on embedded PGlite. No OIDC_*: every provider it serves is in its registry.
    const config = loadConfig({
      HOST: '127.0.0.1',
      PORT: String(ports.gatehouse),
      DATA_DIR: join(dataDir, 'database'),
      LOG_LEVEL: options.logLevel ?? 'warn',
      OIDC_ALLOW_INSECURE_HTTP: 'true',
      // The browser's Origin is the portal's; the proxy hands the request to Gatehouse's own host.
      TRUSTED_ORIGINS: portalUrl,
      // Passkeys: the portal's host is the relying party (Chromium admits http://localhost).
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_RP_NAME: 'Gatehouse playground',
      ...options.env,
      TOKEN_ENCRYPTION_KEY:
        options.env?.TOKEN_ENCRYPTION_KEY ?? tokenEncryptionKey(dataDir, temporaryDataDir),
      SSO_INTERPRETERS: interpreterMap(options.env?.SSO_INTERPRETERS),
    });
    const gatehouse = await openServiceGatehouse(
      { config, logger: createLogger(config.logLevel) },
      { kind: 'embedded' },
    );
    cleanups.push(() => gatehouse.close());

    // 4. What an operator does when a customer signs: tenant, groups, users, then its provider.
    const admin = adminProviders(gatehouse);
    for (const { customer, provider, redirectUri } of Object.values(customers)) {
      await seedCustomerDirectory(gatehouse, customer);
      const client = provider.clients.gatehouse;
      await registerCustomerProvider(
        admin,
        customer,
        {
          issuer: provider.issuer,
          clientId: client.clientId,
          clientSecret: client.clientSecret!,
          redirectUri,
        },
        config.sso.userLevels,
      );
    }
    // The password user of the portal's Security part (second factors, passkeys, step-up).
    await seedPasswordUser(gatehouse, DANA);
    // Every instance picks registry changes up within SSO_REGISTRY_POLL_MS; this one at once.
    const directory = gatehouse.container.get(TOKENS.ProviderDirectory);
    await directory.refresh();
    for (const [id, error] of directory.failures()) {
      throw new Error(`provider "${id}" cannot be used: ${error.message}`);
    }

    const running: RunningServer = await listen(gatehouse.app, config.http.port, config.http.host);
    cleanups.push(() => running.close(1000));
    gatehouseTarget = new URL(running.url);
    portalConfig = {
      scope: PORTAL_SCOPE,
      customers: await Promise.all(Object.values(customers).map(portalEntry)),
    };

    const playground: Playground = {
      portalUrl,
      gatehouseUrl: running.url,
      customers,
      dataDir,
      temporaryDataDir,
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

/** What the portal needs to send a browser to one customer's provider. */
async function portalEntry({ customer, provider, redirectUri }: PlaygroundCustomer) {
  const metadata = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
  };
  return {
    id: customer.id,
    label: customer.label,
    issuer: provider.issuer,
    authorizationEndpoint: metadata.authorization_endpoint,
    clientId: provider.clients.gatehouse.clientId,
    redirectUri,
  };
}

export function instructionsText(
  p: Pick<Playground, 'portalUrl' | 'gatehouseUrl' | 'dataDir' | 'temporaryDataDir' | 'customers'>,
): string {
  const running = Object.values(p.customers);
  const width = Math.max(
    'other'.length,
    ...running.flatMap(({ customer }) => customer.accounts.map((a) => a.login.length)),
  );
  const perCustomer = running.flatMap(({ customer, issuer, redirectUri }) => [
    '',
    `${customer.label}: provider "${customer.id}" at ${issuer} (${customer.idTokenAlg} keys of its own),`,
    `  interpreter "${customer.interpreter}", tenant ${customer.tenant.id}, redirect URI ${redirectUri}`,
    ...customer.accounts.map((account) => `  ${account.login.padEnd(width)}  ${account.outcome}`),
    `  ${'other'.padEnd(width)}  an unknown account id has no claims: refused with SSO_INVALID_USERNAME`,
  ]);
  return [
    '',
    "Gatehouse single sign-on playground: two customers' OpenID providers side by side",
    '',
    `  Portal (open this)  ${p.portalUrl}`,
    `  Gatehouse           ${p.gatehouseUrl}  (the portal proxies ${p.portalUrl}/api/* to it)`,
    `  Data                ${p.dataDir}: PGlite database${p.temporaryDataDir ? ' (deleted on exit)' : ", and the key sealing the registry's secrets"}`,
    '',
    "Both providers are registered in Gatehouse's provider registry, as `gatehouse provider add` would",
    "do; the redirect URI a login names selects the provider, which logs in only its own tenant's users.",
    'Click "Log in with Acme" or "Log in with Globex" on the portal. The provider\'s development login',
    'page accepts ANY password for an existing account id: the login name picks the account. Then click',
    '"Continue" on its consent page (the portal asks for offline_access, so logout has a refresh token',
    'to revoke).',
    ...perCustomer,
    '',
    'The portal then shows the ids and profile Gatehouse answered and your sessions, each naming the',
    'provider it came through; "Logout" calls POST /api/v1/openid/logout/ (ends the session, revokes',
    "the tokens at that session's provider).",
    '',
    `Second factors and passkeys: log in with a password as ${DANA.username} / "${DANA.password}", then under`,
    '"Security" set up an authenticator app (scan the QR code) or add a passkey, log out, and log in',
    'again: with the password and a code or the passkey, or "Log in with a passkey" alone. The "Billing"',
    'page wants two factors and a login of the last 5 minutes (forward auth with ?mfa=1&max_age=300).',
    '',
    'Ports: DEV_SSO_PORTAL_PORT, DEV_SSO_GATEHOUSE_PORT, DEV_SSO_ACME_PORT, DEV_SSO_GLOBEX_PORT (0 = random).',
    'Keep the database between runs: DEV_SSO_DATA_DIR=./data-dev-sso. Ctrl+C stops everything.',
    '',
  ].join('\n');
}
