/**
 * A real OpenID provider (oidc-provider 9) for tests, listening on 127.0.0.1 with a random port.
 *
 * - devInteractions is on, so a real browser can sign in at the provider's built-in login page
 *   (any login name, any password); consent is never asked (`loadExistingGrant` grants everything).
 * - `issueCode()` drives the provider's HTTP endpoints with fetch like a browser would and returns
 *   the authorization code (and the RFC 9207 `iss`) from the redirect, without following it.
 * - `rotateKeys()` swaps in a provider instance with a new signing key on the same server and port
 *   (the in-memory adapter is module-global, so grants and tokens survive).
 * - `stall(ms)` delays every response; `close()` ends the server and all sockets.
 * - `signLogoutToken()` / `signIdToken()` sign tokens by hand (node:crypto) with the provider's
 *   current key or any other key, for negative tests.
 * - `additionalKeys` are published (and usable for signing) next to the rotating signing key;
 *   `extraClients` registers further clients, each with its own ID token algorithm.
 * - `hooks` rewrite the provider's own answers on their way out (oidc-provider middleware): the ID
 *   token of a token response, the JWKS, the discovery document. They exist for what oidc-provider
 *   will not produce (a token without `kid`, signed with `none`, missing `aud`...); `requests`
 *   records the method, path and Authorization header of every request the provider received.
 */

import type { JsonWebKey } from 'node:crypto';
import { createHash, createHmac, randomBytes, randomUUID, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OidcContext, Provider } from 'oidc-provider';
import { generateDetachedKeyPair, type KeyPairShape } from '../detached-key-pair.js';

export type SigningAlg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /** Private JWK with kid, alg and use: 'sig'. */
  privateJwk: JsonWebKey;
  /** Public JWK with kid, alg and use: 'sig'. */
  publicJwk: JsonWebKey;
}

/** A key the verifier must refuse: HMAC with a shared secret, or no signature at all. */
export type UnsafeSigningKey = { alg: 'HS256'; secret: string; kid?: string } | { alg: 'none' };

export type TestClientAuth = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

export interface TestClient {
  clientId: string;
  clientSecret?: string;
  clientAuth: TestClientAuth;
  /** For the private_key_jwt client: the private key the relying party signs its assertions with. */
  privateKeyJwk?: JsonWebKey;
  redirectUris: string[];
}

/** A further client: its ID tokens are signed with `idTokenAlg` (default: the provider's signingAlg). */
export interface ExtraTestClient extends TestClient {
  idTokenAlg?: SigningAlg;
}

/** Rewrites of the provider's answers, applied while set (`resetHooks()` clears them all). */
export interface ProviderHooks {
  /** Replaces the ID token of a successful token response (given the one the provider signed). */
  idToken: ((idToken: string) => string) | null;
  /** Replaces the JWKS document served at jwks_uri. */
  jwks: ((jwks: { keys: JsonWebKey[] }) => { keys: JsonWebKey[] }) | null;
  /** Replaces the discovery document. */
  discovery: ((metadata: Record<string, unknown>) => Record<string, unknown>) | null;
}

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  authorization: string | undefined;
  /** The W3C trace context the request carried, if any (tracing tests). */
  traceparent?: string | undefined;
}

export interface TestClients {
  /** Confidential client, client_secret_basic, back-channel logout with sid. */
  gatehouse: TestClient;
  /** A second confidential client (client_secret_basic), for audience / client mix-up tests. */
  other: TestClient;
  /** Same as gatehouse but client_secret_post. */
  post: TestClient;
  /** Same as gatehouse but private_key_jwt. */
  privateKeyJwt: TestClient;
}

export type AccountClaims = Record<string, unknown>;

export interface StartTestProviderOptions {
  /** Redirect URIs registered for every client. Default ['http://127.0.0.1:5555/cb']. */
  redirectUris?: string[];
  /**
   * backchannel_logout_uri of the gatehouse client. Default: a sink on the provider's own server
   * that records the tokens in `capturedLogoutTokens`.
   */
  backchannelLogoutUri?: string;
  /** Initial accounts: account id → claims (`sub` is always the account id). */
  accounts?: Record<string, AccountClaims>;
  /**
   * Claim names the provider may release besides the built-in list (DEFAULT_CLAIM_NAMES). Claim
   * names used by `accounts` given here are added automatically; accounts added later through the
   * `accounts` map may only use released names.
   */
  extraClaimNames?: string[];
  /** Signing algorithm of the provider's key. Default RS256. */
  signingAlg?: SigningAlg;
  /** Further keys the provider publishes and may sign with; they stay across rotateKeys(). */
  additionalKeys?: SigningKey[];
  /** Further clients, registered besides the built-in ones (no back-channel logout URI). */
  extraClients?: ExtraTestClient[];
  /** Drop oidc-provider's console notices (default true). */
  quiet?: boolean;
  /** Port to listen on (127.0.0.1). Default 0: a random free port. */
  port?: number;
}

export interface IssueCodeOptions {
  accountId: string;
  nonce: string;
  /** Default: the first registered redirect URI. */
  redirectUri?: string;
  /** S256 code challenge. */
  codeChallenge?: string;
  /** Default 'openid'. Use 'openid offline_access' to get a refresh token. */
  scope?: string;
  state?: string;
  /** Default: the gatehouse client. */
  clientId?: string;
  /** Further authorization request parameters. */
  extraParams?: Record<string, string>;
}

export interface IssuedCode {
  code: string;
  /** RFC 9207 `iss` from the authorization response. */
  iss: string | undefined;
  state: string | undefined;
  /** The full redirect the browser would have followed. */
  callbackUrl: string;
}

export interface SignTokenOptions {
  /** Default: the provider's current signing key. */
  key?: SigningKey | UnsafeSigningKey;
  /** Merged into the protected header; a value of undefined removes the member. */
  header?: Record<string, unknown>;
}

export interface TestProvider {
  readonly issuer: string;
  readonly port: number;
  /** The oidc-provider instance currently serving (changes on rotateKeys). */
  readonly provider: Provider;
  /** The current signing key (changes on rotateKeys). */
  readonly signingKey: SigningKey;
  /** Account id → claims; read on every request. */
  readonly accounts: Map<string, AccountClaims>;
  readonly clients: TestClients;
  /** Logout tokens the built-in back-channel sink received, oldest first. */
  readonly capturedLogoutTokens: string[];
  /** Rewrites of the provider's answers; tests set them and clear them with resetHooks(). */
  readonly hooks: ProviderHooks;
  resetHooks(): void;
  /** Every request the provider's server received, oldest first. */
  readonly requests: RecordedRequest[];
  issueCode(options: IssueCodeOptions): Promise<IssuedCode>;
  /** RFC 7662 introspection as the given client (default gatehouse). */
  introspect(token: string, clientId?: string): Promise<Record<string, unknown>>;
  /** Has the provider send a real back-channel logout token to the gatehouse client. */
  sendBackchannelLogout(input: { sub: string; sid?: string }): Promise<void>;
  /** Replaces the signing JWKS with a new key (new kid); same issuer and port. */
  rotateKeys(): Promise<SigningKey>;
  /** Delays every response by ms; null stops. */
  stall(ms: number | null): void;
  close(): Promise<void>;
  /** A back-channel logout token with sensible defaults; claims set to undefined are removed. */
  signLogoutToken(claims?: Record<string, unknown>, options?: SignTokenOptions): string;
  /** An ID token with sensible defaults (for the gatehouse client); claims set to undefined are removed. */
  signIdToken(claims?: Record<string, unknown>, options?: SignTokenOptions): string;
}

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:5555/cb';
export const DEFAULT_CLAIM_NAMES: readonly string[] = [
  'preferred_username',
  'username',
  'name',
  'given_name',
  'family_name',
  'email',
  'email_verified',
  'upn',
  'groups',
  'group_id',
  'roles',
  'realm_access',
  'resource_access',
  'tenant',
  'tenant_id',
  'org',
  'department',
  'custom',
];

const SINK_PATH = '/__test/backchannel-logout';

const b64u = (input: string | Buffer): string => Buffer.from(input).toString('base64url');

/** The key each signing algorithm of the test provider is made with. */
const SIGNING_KEY_SHAPES: Record<SigningAlg, KeyPairShape> = {
  RS256: { type: 'rsa', modulusLength: 2048 },
  PS256: { type: 'rsa', modulusLength: 2048 },
  ES256: { type: 'ec', namedCurve: 'P-256' },
  EdDSA: { type: 'ed25519' },
};

/** Generates a signing key pair with node:crypto and exports both halves as JWKs. */
export function generateSigningKey(alg: SigningAlg = 'RS256', kid: string = randomUUID()): SigningKey {
  const pair = generateDetachedKeyPair(SIGNING_KEY_SHAPES[alg]);
  const meta = { kid, alg, use: 'sig' };
  return {
    kid,
    alg,
    privateJwk: { ...pair.privateKey.export({ format: 'jwk' }), ...meta },
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), ...meta },
  };
}

/** Signs a compact JWS by hand. `header.alg` and `header.kid` default to the key's. */
export function signJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: SigningKey | UnsafeSigningKey,
): string {
  const fullHeader = dropUndefined({
    alg: key.alg,
    kid: 'kid' in key ? key.kid : undefined,
    ...header,
  });
  const input = `${b64u(JSON.stringify(fullHeader))}.${b64u(JSON.stringify(dropUndefined(payload)))}`;
  switch (key.alg) {
    case 'none':
      return `${input}.`;
    case 'HS256':
      return `${input}.${createHmac('sha256', key.secret).update(input).digest('base64url')}`;
    case 'RS256':
      return `${input}.${sign('sha256', Buffer.from(input), { key: key.privateJwk, format: 'jwk' }).toString('base64url')}`;
    case 'PS256':
      return `${input}.${sign('sha256', Buffer.from(input), {
        key: key.privateJwk,
        format: 'jwk',
        padding: 6, // RSA_PKCS1_PSS_PADDING
        saltLength: 32,
      }).toString('base64url')}`;
    case 'ES256':
      return `${input}.${sign('sha256', Buffer.from(input), {
        key: key.privateJwk,
        format: 'jwk',
        dsaEncoding: 'ieee-p1363',
      }).toString('base64url')}`;
    case 'EdDSA':
      return `${input}.${sign(null, Buffer.from(input), { key: key.privateJwk, format: 'jwk' }).toString('base64url')}`;
  }
}

/** Flips one bit in the signature part of a compact JWS. */
export function tamperSignature(jwt: string): string {
  const [h, p, s] = jwt.split('.');
  const sig = Buffer.from(s ?? '', 'base64url');
  sig[0] = (sig[0] ?? 0) ^ 0x01;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

/** Decodes (without verifying) the payload of a compact JWS. */
export function decodeJwtPayload(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/** S256 code challenge for a PKCE code verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function dropUndefined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

let consoleFiltered = false;
/** oidc-provider prints notices through console.warn / console.info; drop just those. */
function filterProviderNotices(): void {
  if (consoleFiltered) return;
  consoleFiltered = true;
  for (const method of ['warn', 'info'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && /oidc-provider (WARNING|NOTICE)/.test(args[0])) return;
      original(...args);
    };
  }
}

function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

class CookieJar {
  readonly #cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function startTestProvider(options: StartTestProviderOptions = {}): Promise<TestProvider> {
  if (options.quiet !== false) filterProviderNotices();
  const { Provider } = await import('oidc-provider');

  const redirectUris = options.redirectUris ?? [DEFAULT_REDIRECT_URI];
  const signingAlg = options.signingAlg ?? 'RS256';
  const accounts = new Map<string, AccountClaims>(
    Object.entries(options.accounts ?? { alice: { preferred_username: 'alice', groups: ['g1'] } }),
  );
  const claimNames = new Set<string>([...DEFAULT_CLAIM_NAMES, ...(options.extraClaimNames ?? [])]);
  for (const claims of accounts.values()) for (const name of Object.keys(claims)) claimNames.add(name);
  claimNames.delete('sub');

  const rpKey = generateSigningKey('RS256');
  const clients: TestClients = {
    gatehouse: {
      clientId: 'gatehouse',
      clientSecret: 'gatehouse-secret-0123456789abcdef',
      clientAuth: 'client_secret_basic',
      redirectUris,
    },
    other: {
      clientId: 'other-app',
      clientSecret: 'other-secret-0123456789abcdef',
      clientAuth: 'client_secret_basic',
      redirectUris,
    },
    post: {
      clientId: 'gatehouse-post',
      clientSecret: 'gatehouse-post-secret-0123456789',
      clientAuth: 'client_secret_post',
      redirectUris,
    },
    privateKeyJwt: {
      clientId: 'gatehouse-pkjwt',
      clientAuth: 'private_key_jwt',
      privateKeyJwk: rpKey.privateJwk,
      redirectUris,
    },
  };

  const extraClients = options.extraClients ?? [];
  const additionalKeys = options.additionalKeys ?? [];
  const hooks: ProviderHooks = { idToken: null, jwks: null, discovery: null };
  const requests: RecordedRequest[] = [];
  const captured: string[] = [];
  const stallTimers = new Set<NodeJS.Timeout>();
  let stallMs: number | null = null;
  let current: { provider: Provider; handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> };
  let signingKey = generateSigningKey(signingAlg);

  const server: Server = createServer((req, res) => {
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
    });
    const run = () => {
      if (req.url === SINK_PATH && req.method === 'POST') {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => {
          body += chunk;
        });
        req.on('end', () => {
          const token = new URLSearchParams(body).get('logout_token');
          if (token) captured.push(token);
          res.writeHead(200).end();
        });
        return;
      }
      void current.handle(req, res);
    };
    if (stallMs === null) {
      run();
      return;
    }
    const timer = setTimeout(() => {
      stallTimers.delete(timer);
      if (!res.destroyed && !req.destroyed) run();
    }, stallMs);
    stallTimers.add(timer);
  });
  // Longer than any client's idle keep-alive (undici: 4 s), so the client always drops an idle
  // connection first: with Node's 5 s default, a test pausing about that long (a slow beforeAll on
  // a loaded machine) could reuse a connection at the moment the server closed it (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const backchannelLogoutUri = options.backchannelLogoutUri ?? `${issuer}${SINK_PATH}`;

  const clientMetadata = (client: TestClient): Record<string, unknown> => ({
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    token_endpoint_auth_method: client.clientAuth,
    ...(client.clientAuth === 'private_key_jwt' ? { jwks: { keys: [rpKey.publicJwk] } } : {}),
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    id_token_signed_response_alg: (client as ExtraTestClient).idTokenAlg ?? signingAlg,
  });

  const build = (key: SigningKey): Provider => {
    const provider = new Provider(issuer, {
      clients: [
        {
          ...clientMetadata(clients.gatehouse),
          backchannel_logout_uri: backchannelLogoutUri,
          backchannel_logout_session_required: true,
        },
        clientMetadata(clients.other),
        clientMetadata(clients.post),
        clientMetadata(clients.privateKeyJwt),
        ...extraClients.map(clientMetadata),
      ],
      jwks: { keys: [key.privateJwk, ...additionalKeys.map((k) => k.privateJwk)] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      features: {
        devInteractions: { enabled: true },
        revocation: {
          enabled: true,
          allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId: string }) =>
            token.clientId === client.clientId,
        },
        introspection: { enabled: true, allowedPolicy: async () => true },
        backchannelLogout: { enabled: true },
      },
      pkce: { required: () => false },
      claims: {
        openid: ['sub', ...claimNames],
        profile: ['preferred_username', 'name', 'given_name', 'family_name'],
        email: ['email', 'email_verified'],
      },
      // Scope-released claims go into the ID token too (not only to userinfo).
      conformIdTokenClaims: false,
      findAccount: async (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ ...(accounts.get(id) ?? {}), sub: id }),
      }),
      // Auto-grant all requested scopes and claims: no consent page.
      loadExistingGrant: async (ctx: OidcContext) => {
        const { oidc } = ctx;
        const clientId = oidc.client?.clientId;
        if (!clientId || !oidc.session?.accountId) return undefined;
        const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(clientId);
        const grant =
          (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ??
          new oidc.provider.Grant({ clientId, accountId: oidc.session.accountId });
        grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
        if (oidc.requestParamClaims.size) grant.addOIDCClaims([...oidc.requestParamClaims]);
        await grant.save();
        return grant;
      },
      rotateRefreshToken: () => false,
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        ClientCredentials: 600,
        IdToken: 600,
        RefreshToken: 3600,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
      renderError: async (ctx: { type: string; body: unknown }, out: Record<string, unknown>) => {
        ctx.type = 'json';
        ctx.body = out;
      },
      clientBasedCORS: () => false,
      // The default fetch refuses special-use addresses (127.0.0.1); the sink lives there.
      fetch: (url: string, init: RequestInit & { dispatcher?: unknown }) => {
        const { dispatcher: _ignored, ...rest } = init;
        return fetch(url, rest);
      },
    });
    provider.silent = true;
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as Record<string, unknown> | undefined;
      if (ctx.status !== 200 || typeof body !== 'object' || body === null) return;
      const route = ctx.oidc?.route;
      if (route === 'token' && hooks.idToken && typeof body.id_token === 'string') {
        ctx.body = { ...body, id_token: hooks.idToken(body.id_token) };
      } else if (route === 'jwks' && hooks.jwks) {
        ctx.body = hooks.jwks(body as { keys: JsonWebKey[] });
      } else if (route === 'discovery' && hooks.discovery) {
        ctx.body = hooks.discovery(body);
      }
    });
    return provider;
  };

  const install = (key: SigningKey) => {
    const provider = build(key);
    current = { provider, handle: provider.callback() };
    signingKey = key;
  };
  install(signingKey);

  let endpoints: Record<string, string> | undefined;
  const endpoint = async (name: string): Promise<string> => {
    endpoints ??= (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    const url = endpoints[name];
    if (!url) throw new Error(`provider metadata has no ${name}`);
    return url;
  };

  const findClient = (clientId: string): TestClient => {
    const client = [...Object.values(clients), ...extraClients].find((c) => c.clientId === clientId);
    if (!client) throw new Error(`unknown test client ${clientId}`);
    return client;
  };

  const issueCode = async (o: IssueCodeOptions): Promise<IssuedCode> => {
    const client = findClient(o.clientId ?? clients.gatehouse.clientId);
    const redirectUri = o.redirectUri ?? client.redirectUris[0] ?? DEFAULT_REDIRECT_URI;
    const params = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: o.scope ?? 'openid',
      nonce: o.nonce,
      ...(o.state ? { state: o.state } : {}),
      ...(o.codeChallenge ? { code_challenge: o.codeChallenge, code_challenge_method: 'S256' } : {}),
      ...o.extraParams,
    });
    // OpenID Connect Core 11: offline_access is only honoured with prompt=consent, which asks for
    // consent even when loadExistingGrant already granted everything; the flow then answers it.
    if (params.get('scope')?.split(' ').includes('offline_access') && !params.has('prompt')) {
      params.set('prompt', 'consent');
    }
    const target = new URL(redirectUri);
    const jar = new CookieJar();
    let url = new URL(`/auth?${params}`, issuer);
    let method: 'GET' | 'POST' = 'GET';
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 16; hop++) {
      const response = await fetch(url, {
        method,
        body,
        redirect: 'manual',
        headers: { cookie: jar.header() },
      });
      jar.store(response);
      const location = response.headers.get('location');
      if (method === 'GET' && response.status === 200 && url.pathname.startsWith('/interaction/')) {
        // The devInteractions page: a login form or a consent form, told apart by its prompt field.
        const page = await response.text();
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
        if (prompt !== 'login' && prompt !== 'consent') {
          throw new Error(`unexpected interaction page at ${url.pathname}`);
        }
        method = 'POST';
        body =
          prompt === 'login'
            ? new URLSearchParams({ prompt, login: o.accountId, password: 'any' })
            : new URLSearchParams({ prompt });
        continue;
      }
      if (response.status < 300 || response.status >= 400 || !location) {
        const text = await response.text();
        throw new Error(
          `authorization flow stopped at ${url.pathname}: HTTP ${response.status} ${text.slice(0, 300)}`,
        );
      }
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin === target.origin && next.pathname === target.pathname) {
        const error = next.searchParams.get('error');
        if (error) {
          throw new Error(
            `authorization refused: ${error} ${next.searchParams.get('error_description') ?? ''}`,
          );
        }
        const code = next.searchParams.get('code');
        if (!code) throw new Error(`redirect without code: ${next.href}`);
        return {
          code,
          iss: next.searchParams.get('iss') ?? undefined,
          state: next.searchParams.get('state') ?? undefined,
          callbackUrl: next.href,
        };
      }
      url = next;
      method = 'GET';
      body = undefined;
    }
    throw new Error('too many redirects in the authorization flow');
  };

  const introspect = async (token: string, clientId = clients.gatehouse.clientId) => {
    const client = findClient(clientId);
    if (!client.clientSecret) throw new Error('introspect() needs a client with a secret');
    const response = await fetch(await endpoint('introspection_endpoint'), {
      method: 'POST',
      headers: {
        authorization: basicAuth(client.clientId, client.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token }),
    });
    if (!response.ok) throw new Error(`introspection failed: HTTP ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  };

  const sendBackchannelLogout = async ({ sub, sid }: { sub: string; sid?: string }) => {
    const client = await current.provider.Client.find(clients.gatehouse.clientId);
    if (!client) throw new Error('gatehouse client not found');
    await client.backchannelLogout(sub, sid);
  };

  const nowS = () => Math.floor(Date.now() / 1000);
  const headerFor = (typ: string | undefined, extra?: Record<string, unknown>) => ({
    ...(typ ? { typ } : {}),
    ...extra,
  });

  const signLogoutToken = (claims: Record<string, unknown> = {}, opts: SignTokenOptions = {}) => {
    const key = opts.key ?? signingKey;
    const now = nowS();
    return signJwt(
      headerFor('logout+jwt', opts.header),
      {
        iss: issuer,
        aud: clients.gatehouse.clientId,
        iat: now,
        exp: now + 120,
        jti: randomUUID(),
        sub: 'alice',
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
        ...claims,
      },
      key,
    );
  };

  const signIdToken = (claims: Record<string, unknown> = {}, opts: SignTokenOptions = {}) => {
    const key = opts.key ?? signingKey;
    const now = nowS();
    return signJwt(
      headerFor(undefined, opts.header),
      { iss: issuer, aud: clients.gatehouse.clientId, iat: now, exp: now + 600, sub: 'alice', ...claims },
      key,
    );
  };

  let closed = false;
  return {
    issuer,
    port,
    get provider() {
      return current.provider;
    },
    get signingKey() {
      return signingKey;
    },
    accounts,
    clients,
    capturedLogoutTokens: captured,
    hooks,
    resetHooks() {
      hooks.idToken = null;
      hooks.jwks = null;
      hooks.discovery = null;
    },
    requests,
    issueCode,
    introspect,
    sendBackchannelLogout,
    async rotateKeys() {
      install(generateSigningKey(signingAlg));
      return signingKey;
    },
    stall(ms: number | null) {
      // Affects requests that arrive from now on; requests already stalled keep their delay.
      stallMs = ms;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of stallTimers) clearTimeout(timer);
      stallTimers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    signLogoutToken,
    signIdToken,
  };
}
