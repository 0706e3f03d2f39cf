/**
 * The endpoints a discovery document names are tied to the issuer's origin unless the deployment
 * allows another (OIDC_ENDPOINT_ORIGINS), on the login path and in `provider test`; and
 * `provider test` reads no more of an answer than the login path would. Real servers throughout:
 * a real oidc-provider, whose discovery answer is rewritten to name `localhost` (another origin
 * reaching the same server), and plain HTTP servers serving hostile answers.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_ANSWER_MAX_BYTES } from '../../src/adapters/openid/bounded-response.js';
import {
  OpenIdClientProvider,
  type OpenIdClientProviderOptions,
} from '../../src/adapters/openid/openid-client-provider.js';
import { probeProvider } from '../../src/adapters/openid/provider-probe.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { DEFAULT_REDIRECT_URI, startTestProvider, type TestProvider } from '../support/oidc/test-provider.js';

/** A plain HTTP server answering every request with `answer`; it counts what it was asked. */
async function startServer(
  answer: (request: IncomingMessage, response: ServerResponse, origin: string) => void,
): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  let origin = '';
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    answer(request, response, origin);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (response: ServerResponse, body: unknown) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

describe('discovered endpoints on the login path', () => {
  let tp: TestProvider;
  /** The provider's own origin under another name: `localhost` instead of `127.0.0.1`. */
  let elsewhere: string;

  beforeAll(async () => {
    tp = await startTestProvider({ accounts: { alice: { preferred_username: 'alice', groups: ['g1'] } } });
    elsewhere = tp.issuer.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => {
    await tp?.close();
  });

  /** A fetch that lets the real provider answer, its discovery naming its token endpoint at `elsewhere`. */
  const movedTokenEndpoint: typeof fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (!String(input).endsWith('/.well-known/openid-configuration')) return response;
    const metadata = (await response.json()) as Record<string, string>;
    return new Response(
      JSON.stringify({ ...metadata, token_endpoint: metadata.token_endpoint!.replace(tp.issuer, elsewhere) }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  }) as typeof fetch;

  const adapter = (overrides: Partial<OpenIdClientProviderOptions>) =>
    new OpenIdClientProvider({
      issuer: tp.issuer,
      clientId: tp.clients.gatehouse.clientId,
      clientSecret: tp.clients.gatehouse.clientSecret!,
      clientAuth: 'client_secret_basic',
      idTokenAlg: 'RS256',
      timeoutMs: 2_000,
      allowInsecureHttp: true,
      fetch: movedTokenEndpoint,
      ...overrides,
    });

  const login = async (provider: OpenIdClientProvider) => {
    const nonce = randomBytes(16).toString('base64url');
    const { code } = await tp.issueCode({ accountId: 'alice', nonce });
    return provider.exchangeCode({ authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce });
  };

  it("refuses a token endpoint off the issuer's origin, sending the code and secret nowhere", async () => {
    const tokenRequests = tp.requests.filter((request) => request.url.startsWith('/token')).length;
    const refused = await login(adapter({})).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('SSO_INVALID');
    expect((refused as DomainError).message).toContain(
      `discovery names token_endpoint ${elsewhere}/token, not at the issuer's origin (allow its origin with OIDC_ENDPOINT_ORIGINS)`,
    );
    expect(tp.requests.filter((request) => request.url.startsWith('/token')).length).toBe(tokenRequests);
  });

  it('logs in through it once the deployment allows its origin', async () => {
    const result = await login(adapter({ endpointOrigins: [elsewhere] }));
    expect(result.subject).toBe('alice');
  });
});

describe('gatehouse provider test against hostile answers', () => {
  const probe = (issuer: string, more: { endpointOrigins?: string[]; maxBytes?: number } = {}) =>
    probeProvider({
      issuer,
      idTokenAlg: 'RS256',
      timeoutMs: 2_000,
      allowInsecureHttp: true,
      endpointOrigins: more.endpointOrigins ?? [],
      ...(more.maxBytes === undefined ? {} : { maxBytes: more.maxBytes }),
    });

  it("refuses a jwks_uri off the issuer's origin without fetching it, and accepts it once allowed", async () => {
    const keys = await startServer((_request, response) =>
      json(response, { keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB', use: 'sig' }] }),
    );
    const idp = await startServer((_request, response, origin) =>
      json(response, { issuer: origin, jwks_uri: `${keys.origin}/keys`, token_endpoint: `${origin}/token` }),
    );
    try {
      const refused = await probe(idp.origin);
      expect(refused.ok).toBe(false);
      expect(refused.lines.at(-1)).toBe(
        `fail  endpoints: discovery names jwks_uri "${keys.origin}/keys", not at the issuer's origin (allow its origin with OIDC_ENDPOINT_ORIGINS)`,
      );
      expect(keys.requests).toEqual([]);

      const allowed = await probe(idp.origin, { endpointOrigins: [keys.origin] });
      expect(allowed).toMatchObject({ ok: true });
      expect(keys.requests).toEqual(['/keys']);
    } finally {
      await Promise.all([keys.close(), idp.close()]);
    }
  });

  it('stops reading a discovery document or key set past the bound, saying so', async () => {
    const huge = 'x'.repeat(PROVIDER_ANSWER_MAX_BYTES + 1);
    // Streamed without a length: only reading tells how large it is.
    const idp = await startServer((request, response, origin) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      if (request.url === '/keys') {
        response.write('{"keys":[],"padding":"');
        response.write(huge);
        response.end('"}');
      } else if (request.url?.startsWith('/big/')) {
        response.write('{"padding":"');
        response.write(huge);
        response.end('"}');
      } else {
        response.end(JSON.stringify({ issuer: origin, jwks_uri: `${origin}/keys` }));
      }
    });
    try {
      const discovery = await probe(`${idp.origin}/big`);
      expect(discovery).toEqual({
        ok: false,
        lines: [
          `fail  discovery ${idp.origin}/big/.well-known/openid-configuration: answer larger than 256 KB: not read further`,
        ],
      });
      const keys = await probe(idp.origin);
      expect(keys.ok).toBe(false);
      expect(keys.lines).toContain(
        `fail  keys ${idp.origin}/keys: answer larger than 256 KB: not read further`,
      );
    } finally {
      await idp.close();
    }
  });
});
