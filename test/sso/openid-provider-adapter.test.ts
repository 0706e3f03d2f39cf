import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  OpenIdClientProvider,
  type OpenIdClientProviderOptions,
} from '../../src/adapters/openid/openid-client-provider.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { ID_TOKEN_ALGORITHMS, type IdTokenAlgorithm } from '../../src/domain/sso/provider-registration.js';
import {
  BACKCHANNEL_LOGOUT_EVENT,
  DEFAULT_REDIRECT_URI,
  decodeJwtPayload,
  generateSigningKey,
  pkceChallenge,
  signJwt,
  startTestProvider,
  type TestProvider,
  tamperSignature,
} from '../support/oidc/test-provider.js';

let tp: TestProvider;
const QUERY_REDIRECT_URI = 'http://127.0.0.1:5555/cb?tenant=acme';

beforeAll(async () => {
  tp = await startTestProvider({
    redirectUris: [DEFAULT_REDIRECT_URI, QUERY_REDIRECT_URI],
    accounts: {
      alice: { preferred_username: 'alice', groups: ['g1'] },
      bob: { preferred_username: 'bob', groups: ['g1', 'g2'] },
      nameless: { groups: ['g1'] },
      nested: { realm_access: { roles: ['r1', 'r2'] }, tenant: { id: 't-1', name: 'Acme' } },
    },
  });
});

afterAll(async () => {
  await tp?.close();
});

afterEach(() => {
  tp.stall(null);
});

function adapter(overrides: Partial<OpenIdClientProviderOptions> = {}): OpenIdClientProvider {
  const { gatehouse } = tp.clients;
  return new OpenIdClientProvider({
    issuer: tp.issuer,
    clientId: gatehouse.clientId,
    clientSecret: gatehouse.clientSecret!,
    clientAuth: 'client_secret_basic',
    idTokenAlg: 'RS256',
    timeoutMs: 2_000,
    allowInsecureHttp: true,
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

const nonce = () => randomBytes(16).toString('base64url');

/** Issues a real code for `accountId` and exchanges it with `provider`. */
async function login(provider: OpenIdClientProvider, accountId = 'alice', scope?: string) {
  const n = nonce();
  const { code } = await tp.issueCode({ accountId, nonce: n, ...(scope ? { scope } : {}) });
  return provider.exchangeCode({ authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce: n });
}

/** A fetch that lets the real provider answer, then rewrites its token endpoint response. */
function rewritingFetch(
  rewrite: (body: Record<string, unknown>) => Record<string, unknown> | Response,
): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (String(input) !== `${tp.issuer}/token` || response.status !== 200) return response;
    const result = rewrite((await response.json()) as Record<string, unknown>);
    if (result instanceof Response) return result;
    return new Response(JSON.stringify(result), {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
  }) as typeof fetch;
}

/** Rewrites the ID token's claims and re-signs it with `key` (default: the provider's own key). */
function resignIdToken(
  change: (claims: Record<string, unknown>) => Record<string, unknown>,
  key: Parameters<typeof signJwt>[2] = tp.signingKey,
  header: Record<string, unknown> = {},
) {
  return rewritingFetch((body) => ({
    ...body,
    id_token: signJwt(header, change(decodeJwtPayload(body.id_token as string)), key),
  }));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenIdClientProvider: code exchange against a real oidc-provider', () => {
  it('exchanges a code, validates the ID token and returns claims, subject, issuer and sid', async () => {
    const provider = adapter();
    expect(provider.isDiscovered()).toBe(false);

    const result = await login(provider);

    expect(provider.isDiscovered()).toBe(true);
    expect(result.issuer).toBe(tp.issuer);
    expect(result.subject).toBe('alice');
    expect(result.claims).toMatchObject({ sub: 'alice', preferred_username: 'alice', groups: ['g1'] });
    expect(result.claims.iss).toBe(tp.issuer);
    expect(result.claims.aud).toBe('gatehouse');
    // The gatehouse client is registered with backchannel_logout_session_required: sid is sent.
    expect(typeof result.sid).toBe('string');
    expect(result.claims.sid).toBe(result.sid);
    expect(result.idToken.split('.')).toHaveLength(3);
    expect(result.accessToken).toBeTruthy();
    expect(result.refreshToken).toBeUndefined();
  });

  it('passes arbitrary claim layouts through unchanged', async () => {
    const provider = adapter();
    expect((await login(provider, 'bob')).claims.groups).toEqual(['g1', 'g2']);
    const nameless = await login(provider, 'nameless');
    expect(nameless.claims.preferred_username).toBeUndefined();
    expect(nameless.claims.groups).toEqual(['g1']);
    const nested = await login(provider, 'nested');
    expect(nested.claims.realm_access).toEqual({ roles: ['r1', 'r2'] });
    expect(nested.claims.tenant).toEqual({ id: 't-1', name: 'Acme' });
  });

  it('authenticates with client_secret_post and private_key_jwt too', async () => {
    const { post, privateKeyJwt } = tp.clients;
    for (const client of [post, privateKeyJwt]) {
      const provider = adapter({
        clientId: client.clientId,
        clientAuth: client.clientAuth,
        ...(client.clientSecret
          ? { clientSecret: client.clientSecret }
          : { privateKeyJwk: client.privateKeyJwk! }),
      });
      const n = nonce();
      const { code } = await tp.issueCode({ accountId: 'alice', nonce: n, clientId: client.clientId });
      const result = await provider.exchangeCode({
        authorizationCode: code,
        redirectUri: DEFAULT_REDIRECT_URI,
        nonce: n,
      });
      expect(result.claims.aud).toBe(client.clientId);
    }
  });

  it('refuses a nonce mismatch with SSO_INVALID', async () => {
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: nonce() });
    const error = await failure(
      adapter().exchangeCode({ authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce: nonce() }),
    );
    expect(error.code).toBe('SSO_INVALID');
    expect(error.message).not.toContain(code);
  });

  it('refuses a code issued to another client with SSO_REFUSED (the token endpoint says invalid_grant)', async () => {
    // oidc-provider binds the code to the client it was issued to; a different registered client
    // presenting it gets invalid_grant before any ID token exists, so the audience check never runs.
    const n = nonce();
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: n });
    const { other } = tp.clients;
    const error = await failure(
      adapter({ clientId: other.clientId, clientSecret: other.clientSecret! }).exchangeCode({
        authorizationCode: code,
        redirectUri: DEFAULT_REDIRECT_URI,
        nonce: n,
      }),
    );
    expect(error.code).toBe('SSO_REFUSED');
    expect(error.message).toContain('invalid_grant');
  });

  it('refuses a wrong client secret with SSO_REFUSED (invalid_client)', async () => {
    const n = nonce();
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: n });
    const error = await failure(
      adapter({ clientSecret: 'wrong-secret-0123456789abcdef' }).exchangeCode({
        authorizationCode: code,
        redirectUri: DEFAULT_REDIRECT_URI,
        nonce: n,
      }),
    );
    expect(error.code).toBe('SSO_REFUSED');
    expect(error.message).not.toContain('wrong-secret');
  });

  it('refuses a replayed code with SSO_REFUSED', async () => {
    const provider = adapter();
    const n = nonce();
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: n });
    const request = { authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce: n };
    await provider.exchangeCode(request);
    const error = await failure(provider.exchangeCode(request));
    expect(error.code).toBe('SSO_REFUSED');
    expect(error.message).not.toContain(code);
  });

  it('refuses a redirect_uri that differs from the authorization request with SSO_REFUSED', async () => {
    const n = nonce();
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: n });
    const error = await failure(
      adapter().exchangeCode({
        authorizationCode: code,
        redirectUri: 'http://127.0.0.1:5555/other',
        nonce: n,
      }),
    );
    expect(error.code).toBe('SSO_REFUSED');
  });

  it('sends the redirect_uri exactly as given, even with a query component', async () => {
    const n = nonce();
    const { code, callbackUrl } = await tp.issueCode({
      accountId: 'alice',
      nonce: n,
      redirectUri: QUERY_REDIRECT_URI,
    });
    expect(new URL(callbackUrl).searchParams.get('tenant')).toBe('acme');
    const result = await adapter().exchangeCode({
      authorizationCode: code,
      redirectUri: QUERY_REDIRECT_URI,
      nonce: n,
    });
    expect(result.subject).toBe('alice');
  });

  it('supports PKCE: the right verifier succeeds, a wrong or missing one is SSO_REFUSED', async () => {
    const provider = adapter();
    const verifier = randomBytes(32).toString('base64url');
    const codeChallenge = pkceChallenge(verifier);

    let n = nonce();
    let { code } = await tp.issueCode({ accountId: 'alice', nonce: n, codeChallenge });
    const ok = await provider.exchangeCode({
      authorizationCode: code,
      redirectUri: DEFAULT_REDIRECT_URI,
      nonce: n,
      codeVerifier: verifier,
    });
    expect(ok.subject).toBe('alice');

    n = nonce();
    ({ code } = await tp.issueCode({ accountId: 'alice', nonce: n, codeChallenge }));
    const wrong = await failure(
      provider.exchangeCode({
        authorizationCode: code,
        redirectUri: DEFAULT_REDIRECT_URI,
        nonce: n,
        codeVerifier: randomBytes(32).toString('base64url'),
      }),
    );
    expect(wrong.code).toBe('SSO_REFUSED');

    n = nonce();
    ({ code } = await tp.issueCode({ accountId: 'alice', nonce: n, codeChallenge }));
    const missing = await failure(
      provider.exchangeCode({ authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce: n }),
    );
    expect(missing.code).toBe('SSO_REFUSED');
  });

  it('keeps working across a key rotation (same adapter; an unknown kid refetches the JWKS once)', async () => {
    let jwksFetches = 0;
    const provider = adapter({
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        if (String(input) === `${tp.issuer}/jwks`) jwksFetches += 1;
        return fetch(input, init);
      }) as typeof fetch,
    });
    const first = await login(provider);
    expect(jwksFetches).toBe(1);
    const oldKid = tp.signingKey.kid;

    const newKey = await tp.rotateKeys();
    expect(newKey.kid).not.toBe(oldKid);

    const second = await login(provider);
    expect(JSON.parse(Buffer.from(second.idToken.split('.')[0]!, 'base64url').toString()).kid).toBe(
      newKey.kid,
    );
    expect(JSON.parse(Buffer.from(first.idToken.split('.')[0]!, 'base64url').toString()).kid).toBe(oldKid);
    expect(jwksFetches).toBe(2);

    // A cached key serves the next login without a fetch.
    await login(provider);
    expect(jwksFetches).toBe(2);
  });

  it('requires the discovered issuer to equal the configured issuer exactly', async () => {
    const error = await failure(login(adapter({ issuer: `${tp.issuer}/` })));
    expect(error.code).toBe('SSO_INVALID');
  });

  it('rejects an http issuer unless allowInsecureHttp', () => {
    expect(() => adapter({ allowInsecureHttp: false })).toThrow(/https/);
  });
});

describe('OpenIdClientProvider: ID tokens the real provider would not send', () => {
  it('refuses a token whose signature was altered', async () => {
    const provider = adapter({
      fetch: rewritingFetch((body) => ({ ...body, id_token: tamperSignature(body.id_token as string) })),
    });
    const error = await failure(login(provider));
    expect(error.code).toBe('SSO_INVALID');
  });

  it('refuses a token signed with a foreign key, under a new kid or under the provider kid', async () => {
    const foreign = generateSigningKey('RS256');
    expect((await failure(login(adapter({ fetch: resignIdToken((c) => c, foreign) })))).code).toBe(
      'SSO_INVALID',
    );
    const impostor = { ...foreign, kid: tp.signingKey.kid };
    expect((await failure(login(adapter({ fetch: resignIdToken((c) => c, impostor) })))).code).toBe(
      'SSO_INVALID',
    );
  });

  it('refuses alg none and HS256 (signed with the client secret)', async () => {
    expect((await failure(login(adapter({ fetch: resignIdToken((c) => c, { alg: 'none' }) })))).code).toBe(
      'SSO_INVALID',
    );
    const hs = { alg: 'HS256' as const, secret: tp.clients.gatehouse.clientSecret! };
    expect((await failure(login(adapter({ fetch: resignIdToken((c) => c, hs) })))).code).toBe('SSO_INVALID');
  });

  it('refuses none and HS256 even when the provider metadata advertises them (the algorithm is configured)', async () => {
    // The discovery document is rewritten to advertise them: the expected algorithm comes from the
    // adapter's settings (idTokenAlg), never from what the provider says it supports.
    const advertiseWeakAlgs = (inner: typeof fetch): typeof fetch =>
      (async (input: string | URL | Request, init?: RequestInit) => {
        const response = await inner(input, init);
        if (!String(input).endsWith('/.well-known/openid-configuration')) return response;
        const metadata = (await response.json()) as Record<string, unknown>;
        metadata.id_token_signing_alg_values_supported = ['RS256', 'HS256', 'none'];
        return new Response(JSON.stringify(metadata), { headers: { 'content-type': 'application/json' } });
      }) as typeof fetch;
    const hs = { alg: 'HS256' as const, secret: tp.clients.gatehouse.clientSecret! };
    for (const key of [hs, { alg: 'none' as const }]) {
      const provider = adapter({ fetch: advertiseWeakAlgs(resignIdToken((c) => c, key)) });
      expect((await failure(login(provider))).code).toBe('SSO_INVALID');
    }
  });

  it('refuses to be built with an expected algorithm outside RS256, PS256, ES256, EdDSA', () => {
    for (const idTokenAlg of ['HS256', 'none', 'RS384', ''])
      expect(() => adapter({ idTokenAlg: idTokenAlg as 'RS256' })).toThrow(/idTokenAlg must be one of/);
  });

  // The detail names the claim where openid-client says which (it does not for a missing iat or nonce).
  it.each<[string, (c: Record<string, unknown>) => Record<string, unknown>, string]>([
    ['another audience', (c) => ({ ...c, aud: 'other-app' }), ' (claim aud)'],
    ['another issuer', (c) => ({ ...c, iss: 'http://127.0.0.1:1' }), ' (claim iss)'],
    ['expired', (c) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 120 }), ' (claim exp)'],
    [
      'issued in the future',
      (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) + 300 }),
      ' (claim iat in the future)',
    ],
    ['without iat', (c) => ({ ...c, iat: undefined }), ''],
    ['without nonce', (c) => ({ ...c, nonce: undefined }), ''],
  ])('refuses a correctly signed token that is %s', async (_label, change, detail) => {
    const error = await failure(login(adapter({ fetch: resignIdToken(change) })));
    expect(error.code).toBe('SSO_INVALID');
    expect(error.message).toBe(`The OpenID provider response failed validation${detail}`);
  });

  it('refuses a token response without an ID token', async () => {
    const provider = adapter({ fetch: rewritingFetch(({ id_token: _dropped, ...body }) => body) });
    const error = await failure(login(provider));
    expect(error.code).toBe('SSO_INVALID');
    // openid-client refuses it first (an ID token is expected), without a detail.
    expect(error.message).toBe('The OpenID provider response failed validation');
  });

  it('reports a 5xx from the token endpoint as SSO_UNREACHABLE', async () => {
    const json = (status: number, body: unknown) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    let provider = adapter({ fetch: rewritingFetch(() => json(500, { error: 'server_error' })) });
    expect((await failure(login(provider))).code).toBe('SSO_UNREACHABLE');
    provider = adapter({
      fetch: rewritingFetch(() => new Response('<html>Bad gateway</html>', { status: 502 })),
    });
    expect((await failure(login(provider))).code).toBe('SSO_UNREACHABLE');
  });
});

describe('OpenIdClientProvider: an unavailable provider', () => {
  it('reports a closed port as SSO_UNREACHABLE and stays undiscovered', async () => {
    const provider = adapter({ issuer: `http://127.0.0.1:${await freePort()}` });
    const error = await failure(
      provider.exchangeCode({ authorizationCode: 'x', redirectUri: DEFAULT_REDIRECT_URI, nonce: 'n' }),
    );
    expect(error.code).toBe('SSO_UNREACHABLE');
    expect(provider.isDiscovered()).toBe(false);
    expect((await failure(provider.validateLogoutToken(tp.signLogoutToken()))).code).toBe('SSO_UNREACHABLE');
    expect((await failure(provider.logout({ refreshToken: 'r' }))).code).toBe('SSO_UNREACHABLE');
  });

  it('retries discovery on the next call after a failure', async () => {
    let down = true;
    const provider = adapter({
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        if (down) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
        return fetch(input, init);
      }) as typeof fetch,
    });
    expect((await failure(login(provider))).code).toBe('SSO_UNREACHABLE');
    expect(provider.isDiscovered()).toBe(false);
    down = false;
    expect((await login(provider)).subject).toBe('alice');
    expect(provider.isDiscovered()).toBe(true);
  });

  it('times out discovery of a stalled provider with SSO_UNREACHABLE', async () => {
    const provider = adapter({ timeoutMs: 300 });
    // Stalled past the time-out: the time-out's timer fires first (provider and adapter share this
    // event loop), so no clock bound is needed. Without it, the late answer would be the
    // provider's refusal of code 'x' (SSO_REFUSED), not SSO_UNREACHABLE.
    tp.stall(3_000);
    const error = await failure(
      provider.exchangeCode({ authorizationCode: 'x', redirectUri: DEFAULT_REDIRECT_URI, nonce: 'n' }),
    );
    expect(error.code).toBe('SSO_UNREACHABLE');
  });

  it('times out a stalled token endpoint with SSO_UNREACHABLE', async () => {
    const provider = adapter({ timeoutMs: 300 });
    await login(provider); // discovered and JWKS cached
    const n = nonce();
    const { code } = await tp.issueCode({ accountId: 'alice', nonce: n });
    // Without the time-out, the answer due after the stall would be a login (timer order again).
    tp.stall(3_000);
    const error = await failure(
      provider.exchangeCode({ authorizationCode: code, redirectUri: DEFAULT_REDIRECT_URI, nonce: n }),
    );
    expect(error.code).toBe('SSO_UNREACHABLE');
  });
});

describe('OpenIdClientProvider: logout', () => {
  it('revokes refresh and access tokens (RFC 7009); introspection then calls them inactive', async () => {
    const provider = adapter();
    const tokens = await login(provider, 'alice', 'openid offline_access');
    expect(tokens.refreshToken).toBeTruthy();
    expect(await tp.introspect(tokens.refreshToken!)).toMatchObject({ active: true, sub: 'alice' });
    expect(await tp.introspect(tokens.accessToken!)).toMatchObject({ active: true });

    const result = await provider.logout({
      idToken: tokens.idToken,
      refreshToken: tokens.refreshToken!,
      accessToken: tokens.accessToken!,
    });

    expect(result).toEqual({ revoked: 2 });
    expect(await tp.introspect(tokens.refreshToken!)).toEqual({ active: false });
    expect(await tp.introspect(tokens.accessToken!)).toEqual({ active: false });
  });

  it('revokes nothing when no token is given', async () => {
    expect(await adapter().logout({ idToken: 'x' })).toEqual({ revoked: 0 });
  });

  it('reports a refused revocation as SSO_REFUSED', async () => {
    const error = await failure(
      adapter({ clientSecret: 'wrong-secret-0123456789abcdef' }).logout({ refreshToken: 'whatever' }),
    );
    expect(error.code).toBe('SSO_REFUSED');
    expect(error.message).not.toContain('whatever');
  });
});

describe('OpenIdClientProvider: back-channel logout tokens', () => {
  it('accepts a logout token the real provider sends, with sub and sid', async () => {
    const provider = adapter();
    const { sid } = await login(provider);
    await tp.sendBackchannelLogout({ sub: 'alice', sid: sid! });
    const token = tp.capturedLogoutTokens.at(-1)!;
    const claims = await provider.validateLogoutToken(token);
    expect(claims).toMatchObject({ issuer: tp.issuer, subject: 'alice', sid });
    expect(claims.tokenId).toMatch(/^.{1,255}$/);
    // Accepted until exp, or sooner 120 s past iat: never longer.
    expect(claims.acceptedUntil.getTime()).toBeLessThanOrEqual(Date.now() + 121_000);
  });

  it('accepts hand-signed tokens with sub only, sid only, and an aud array', async () => {
    const provider = adapter();
    /** The identifying claims; tokenId and acceptedUntil are checked in their own tests. */
    const identity = async (token: string) => {
      const { tokenId: _id, acceptedUntil: _until, ...rest } = await provider.validateLogoutToken(token);
      // Only the claims the token has: no `subject` or `sid` key without a value.
      return { ...rest, keys: Object.keys(rest).sort() };
    };
    expect(await identity(tp.signLogoutToken({ sub: 'bob' }))).toEqual({
      issuer: tp.issuer,
      subject: 'bob',
      keys: ['issuer', 'subject'],
    });
    expect(await identity(tp.signLogoutToken({ sub: undefined, sid: 's-1' }))).toEqual({
      issuer: tp.issuer,
      sid: 's-1',
      keys: ['issuer', 'sid'],
    });
    expect(
      await identity(tp.signLogoutToken({ aud: ['x', 'gatehouse'] }, { header: { typ: undefined } })),
    ).toEqual({ issuer: tp.issuer, subject: 'alice', keys: ['issuer', 'subject'] });
  });

  it('gives the jti, and accepts a token until its exp or 120 s past its iat, whichever is first', async () => {
    const provider = adapter();
    const t = Math.floor(Date.now() / 1000);
    const long = await provider.validateLogoutToken(
      tp.signLogoutToken({ jti: 'j-1', iat: t, exp: t + 3600 }),
    );
    expect(long.tokenId).toBe('j-1');
    expect(long.acceptedUntil.getTime()).toBe((t + 120) * 1000);
    const short = await provider.validateLogoutToken(tp.signLogoutToken({ iat: t, exp: t + 30 }));
    expect(short.acceptedUntil.getTime()).toBeLessThanOrEqual((t + 30 + 60) * 1000);
    expect(short.acceptedUntil.getTime()).toBeGreaterThanOrEqual((t + 30) * 1000);
  });

  const now = () => Math.floor(Date.now() / 1000);
  // Each refusal by its own reason (the error's detail): a removed check must not hide behind a
  // later one that refuses the same token.
  it.each<[string, () => string, string]>([
    ['a nonce', () => tp.signLogoutToken({ nonce: 'n' }), 'claim nonce must be absent'],
    ['a wrong aud', () => tp.signLogoutToken({ aud: 'other-app' }), 'claim aud'],
    [
      'an aud that is neither a string nor a list',
      () => tp.signLogoutToken({ aud: { gatehouse: true } }),
      'claim aud',
    ],
    ['a wrong iss', () => tp.signLogoutToken({ iss: 'http://127.0.0.1:1' }), 'claim iss'],
    [
      'a foreign key',
      () => tp.signLogoutToken({}, { key: generateSigningKey('RS256') }),
      'no provider key matches the JWS',
    ],
    [
      'a foreign key under the provider kid',
      () => tp.signLogoutToken({}, { key: { ...generateSigningKey('RS256'), kid: tp.signingKey.kid } }),
      'JWS signature verification failed',
    ],
    [
      'a flipped signature bit',
      () => tamperSignature(tp.signLogoutToken()),
      'JWS signature verification failed',
    ],
    ['no events', () => tp.signLogoutToken({ events: undefined }), 'claim events'],
    ['events that are null', () => tp.signLogoutToken({ events: null }), 'claim events'],
    [
      'events without the logout event',
      () => tp.signLogoutToken({ events: { 'urn:other': {} } }),
      'claim events',
    ],
    [
      'a logout event that is not an object',
      () => tp.signLogoutToken({ events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } }),
      'claim events',
    ],
    [
      'a logout event that is null',
      () => tp.signLogoutToken({ events: { [BACKCHANNEL_LOGOUT_EVENT]: null } }),
      'claim events',
    ],
    [
      'a logout event that is a list',
      () => tp.signLogoutToken({ events: { [BACKCHANNEL_LOGOUT_EVENT]: [] } }),
      'claim events',
    ],
    ['a stale iat', () => tp.signLogoutToken({ iat: now() - 600, exp: now() + 600 }), 'claim iat too old'],
    ['an iat in the future', () => tp.signLogoutToken({ iat: now() + 600 }), 'claim iat in the future'],
    ['no iat', () => tp.signLogoutToken({ iat: undefined }), 'claim iat'],
    ['an iat that is not a number', () => tp.signLogoutToken({ iat: String(now()) }), 'claim iat'],
    ['a passed exp', () => tp.signLogoutToken({ iat: now() - 100, exp: now() - 60 }), 'claim exp'],
    [
      'neither sub nor sid',
      () => tp.signLogoutToken({ sub: undefined, sid: undefined }),
      'claims sub and sid both missing',
    ],
    // Issue 14, finding 8 and issue 11, finding 10.
    ['no exp', () => tp.signLogoutToken({ exp: undefined }), 'claim exp'],
    ['an exp that is not a number', () => tp.signLogoutToken({ exp: String(now() + 60) }), 'claim exp'],
    ['no jti', () => tp.signLogoutToken({ jti: undefined }), 'claim jti'],
    ['a jti that is not a string', () => tp.signLogoutToken({ jti: 42 }), 'claim jti'],
    ['an empty jti', () => tp.signLogoutToken({ jti: '' }), 'claim jti'],
    ['a jti of 256 characters', () => tp.signLogoutToken({ jti: 'j'.repeat(256) }), 'claim jti'],
    ['a sub of 256 characters', () => tp.signLogoutToken({ sub: 's'.repeat(256) }), 'claim sub'],
    ['an empty sub', () => tp.signLogoutToken({ sub: '' }), 'claim sub'],
    ['a sid of 256 characters', () => tp.signLogoutToken({ sid: 's'.repeat(256) }), 'claim sid'],
    ['an empty sid', () => tp.signLogoutToken({ sid: '' }), 'claim sid'],
    ['an nbf in the future', () => tp.signLogoutToken({ nbf: now() + 600 }), 'claim nbf'],
    ['an nbf that is not a number', () => tp.signLogoutToken({ nbf: String(now()) }), 'claim nbf'],
    [
      'b64 false without crit',
      () => tp.signLogoutToken({}, { header: { b64: false } }),
      'unsupported JWS b64 header',
    ],
    ['typ JWT', () => tp.signLogoutToken({}, { header: { typ: 'JWT' } }), 'header typ'],
    ['a typ that is not a string', () => tp.signLogoutToken({}, { header: { typ: 42 } }), 'header typ'],
    ['alg none', () => tp.signLogoutToken({}, { key: { alg: 'none' } }), 'JWS algorithm not allowed'],
    [
      'HS256 with the client secret',
      () => tp.signLogoutToken({}, { key: { alg: 'HS256', secret: tp.clients.gatehouse.clientSecret! } }),
      'JWS algorithm not allowed',
    ],
    ['garbage', () => 'not-a-jwt', 'not a signed JWT'],
    ['nothing', () => '', 'logout token missing or too large'],
    ['more than 16 KiB', () => 'a'.repeat(16_385), 'logout token missing or too large'],
    // Exactly 16 KiB is read (and refused as what it is, not for its size).
    ['16 KiB that are not a JWT', () => 'a'.repeat(16_384), 'not a signed JWT'],
  ])('refuses a token with %s as SSO_INVALID, for its reason', async (_label, make, reason) => {
    const error = await failure(adapter().validateLogoutToken(make()));
    expect(error.code).toBe('SSO_INVALID');
    expect(error.message).toBe(`The OpenID provider response failed validation (${reason})`);
  });

  it('refuses a logout token that is not a string', async () => {
    const error = await failure(adapter().validateLogoutToken(42 as unknown as string));
    expect(error.message).toBe(
      'The OpenID provider response failed validation (logout token missing or too large)',
    );
  });

  it('accepts both spellings of the logout token type, and an nbf that has passed', async () => {
    const provider = adapter();
    for (const typ of ['logout+jwt', 'application/logout+jwt', 'Logout+JWT']) {
      expect(
        await provider.validateLogoutToken(tp.signLogoutToken({ sid: typ }, { header: { typ } })),
      ).toMatchObject({
        sid: typ,
      });
    }
    expect(await provider.validateLogoutToken(tp.signLogoutToken({ nbf: now() - 10 }))).toMatchObject({
      subject: 'alice',
    });
  });

  it('accepts identifiers of 255 characters', async () => {
    const long = 'x'.repeat(255);
    expect(
      await adapter().validateLogoutToken(tp.signLogoutToken({ sub: long, sid: long, jti: long })),
    ).toMatchObject({
      subject: long,
      sid: long,
      tokenId: long,
    });
  });

  it('accepts a token signed with a key rotated in after the JWKS was cached', async () => {
    const provider = adapter();
    await provider.validateLogoutToken(tp.signLogoutToken());
    await tp.rotateKeys();
    expect(await provider.validateLogoutToken(tp.signLogoutToken({ sid: 's-2' }))).toMatchObject({
      sid: 's-2',
    });
  });
});

describe('OpenIdClientProvider: each configurable expected algorithm, against a provider signing with it', () => {
  it.each(ID_TOKEN_ALGORITHMS)(
    '%s: the provider tokens are accepted, under any other expected algorithm refused',
    async (alg) => {
      const signing = await startTestProvider({ signingAlg: alg });
      try {
        const { gatehouse } = signing.clients;
        const expecting = (idTokenAlg: IdTokenAlgorithm) =>
          new OpenIdClientProvider({
            issuer: signing.issuer,
            clientId: gatehouse.clientId,
            clientSecret: gatehouse.clientSecret!,
            clientAuth: 'client_secret_basic',
            idTokenAlg,
            timeoutMs: 2_000,
            allowInsecureHttp: true,
          });
        const exchange = async (provider: OpenIdClientProvider) => {
          const n = nonce();
          const { code } = await signing.issueCode({ accountId: 'alice', nonce: n });
          return provider.exchangeCode({
            authorizationCode: code,
            redirectUri: DEFAULT_REDIRECT_URI,
            nonce: n,
          });
        };
        const right = expecting(alg);
        const { idToken } = await exchange(right);
        expect(JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString())).toMatchObject({
          alg,
        });
        expect(await right.validateLogoutToken(signing.signLogoutToken())).toMatchObject({
          subject: 'alice',
        });

        const wrong = expecting(alg === 'RS256' ? 'ES256' : 'RS256');
        expect((await failure(exchange(wrong))).code).toBe('SSO_INVALID');
        expect((await failure(wrong.validateLogoutToken(signing.signLogoutToken()))).code).toBe(
          'SSO_INVALID',
        );
      } finally {
        await signing.close();
      }
    },
  );
});

describe('OpenIdClientProvider: each check of the code exchange, by its reason', () => {
  const reason = (detail: string) => `The OpenID provider response failed validation (${detail})`;

  it('refuses a request without code, nonce or redirect_uri, or with a redirect_uri that is not a URL', async () => {
    const provider = adapter();
    const complete = { authorizationCode: 'c', redirectUri: DEFAULT_REDIRECT_URI, nonce: 'n' };
    for (const missing of ['authorizationCode', 'redirectUri', 'nonce'] as const) {
      const error = await failure(provider.exchangeCode({ ...complete, [missing]: '' }));
      expect(error.message).toBe(reason('code, nonce and redirect_uri are required'));
    }
    const error = await failure(provider.exchangeCode({ ...complete, redirectUri: 'not a url' }));
    expect(error.message).toBe(reason('redirect_uri is not a URL'));
    // Refused before anything was asked of the provider.
    expect(provider.isDiscovered()).toBe(false);
  });

  it.each<[string, (c: Record<string, unknown>) => Record<string, unknown>, string]>([
    ['a sub of 256 characters', (c) => ({ ...c, sub: 's'.repeat(256) }), 'claim sub'],
    ['a sid of 256 characters', (c) => ({ ...c, sid: 's'.repeat(256) }), 'claim sid'],
    ['an empty sid', (c) => ({ ...c, sid: '' }), 'claim sid'],
  ])('refuses an ID token with %s, for its reason', async (_label, change, detail) => {
    const error = await failure(login(adapter({ fetch: resignIdToken(change) })));
    expect(error.message).toBe(reason(detail));
  });

  it('refuses an ID token typed as another kind of token, accepts one typed as a JWT', async () => {
    for (const typ of ['logout+jwt', 'at+jwt', 42]) {
      const error = await failure(login(adapter({ fetch: resignIdToken((c) => c, tp.signingKey, { typ }) })));
      expect(error.message).toBe(reason('header typ'));
    }
    for (const typ of ['JWT', 'application/jwt', 'jwt']) {
      expect((await login(adapter({ fetch: resignIdToken((c) => c, tp.signingKey, { typ }) }))).subject).toBe(
        'alice',
      );
    }
  });

  it('refuses an ID token whose azp names another client', async () => {
    const error = await failure(
      login(adapter({ fetch: resignIdToken((c) => ({ ...c, azp: 'other-app' })) })),
    );
    expect(error.message).toBe(reason('claim azp'));
    expect(
      (await login(adapter({ fetch: resignIdToken((c) => ({ ...c, azp: tp.clients.gatehouse.clientId })) })))
        .subject,
    ).toBe('alice');
  });

  it('gives no sid when the ID token has none', async () => {
    const result = await login(adapter({ fetch: resignIdToken(({ sid: _sid, ...c }) => c) }));
    expect(result.subject).toBe('alice');
    expect(Object.keys(result)).not.toContain('sid');
  });

  it('refetches the JWKS for an unknown kid from the token endpoint even within the cool-down', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const provider = adapter();
      await login(provider);
      // An unknown kid in a logout token refetches the JWKS and starts the cool-down (the clock stands still).
      const foreign = tp.signLogoutToken({}, { key: generateSigningKey('RS256') });
      expect((await failure(provider.validateLogoutToken(foreign))).message).toBe(
        reason('no provider key matches the JWS'),
      );
      await tp.rotateKeys();
      // A logout token under the new key waits for the cool-down; an ID token from the token endpoint does not.
      expect((await failure(provider.validateLogoutToken(tp.signLogoutToken()))).message).toBe(
        reason('no provider key matches the JWS'),
      );
      expect((await login(provider)).subject).toBe('alice');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('OpenIdClientProvider: the time checks at their bounds (30 s tolerance, 120 s logout token age)', () => {
  const NOW_S = 2_000_000_000;
  const reason = (detail: string) => `The OpenID provider response failed validation (${detail})`;
  const logoutToken = (claims: Record<string, unknown>) =>
    tp.signLogoutToken({ iat: NOW_S, exp: NOW_S + 120, ...claims });

  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW_S * 1000);
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it.each<[string, Record<string, unknown>, string | null]>([
    ['an iat 30 s ahead', { iat: NOW_S + 30 }, null],
    ['an iat 31 s ahead', { iat: NOW_S + 31 }, 'claim iat in the future'],
    ['an iat 120 s old', { iat: NOW_S - 120, exp: NOW_S + 60 }, null],
    ['an iat 121 s old', { iat: NOW_S - 121, exp: NOW_S + 60 }, 'claim iat too old'],
    ['an exp 29 s past', { iat: NOW_S - 60, exp: NOW_S - 29 }, null],
    ['an exp 30 s past', { iat: NOW_S - 60, exp: NOW_S - 30 }, 'claim exp'],
    ['an nbf 30 s ahead', { nbf: NOW_S + 30 }, null],
    ['an nbf 31 s ahead', { nbf: NOW_S + 31 }, 'claim nbf'],
  ])('a logout token with %s', async (_label, claims, refusal) => {
    const answer = adapter().validateLogoutToken(logoutToken(claims));
    if (refusal === null) expect((await answer).subject).toBe('alice');
    else expect((await failure(answer)).message).toBe(reason(refusal));
  });

  it('accepts an ID token issued 30 s ahead, refuses one 31 s ahead', async () => {
    const at = (iat: number) => adapter({ fetch: resignIdToken((c) => ({ ...c, iat })) });
    expect((await login(at(NOW_S + 30))).subject).toBe('alice');
    expect((await failure(login(at(NOW_S + 31)))).message).toBe(reason('claim iat in the future'));
  });
});
