/**
 * One customer's provider turned hostile costs the other customers nothing: its JWKS (served by a
 * real oidc-provider, rewritten on its way out) holds keys of 16384 bits, exponents of 4096 bits,
 * dozens of keys under one kid, then a thousand keys; anyone posts forged back-channel logout
 * tokens naming it. Shown by outcome and by count, never by time: the other provider's logins are
 * answered, each forged token is checked against a few keys at most (the service's own metrics
 * count each signature check and each refused key), oversized keys are refused once when the set
 * is fetched, and an address that keeps posting forged tokens is answered 429.
 */
import { type JsonWebKey, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWKS_MAX_KEYS } from '../../src/adapters/openid/jwks-admission.js';
import { MAX_KEYS_PER_TOKEN } from '../../src/adapters/openid/jwt-signature-verifier.js';
import { ssoLogin } from '../fixtures/sso/harness.js';
import { startTwoCustomers, type TwoCustomers } from '../fixtures/sso/two-customers.js';
import { generateDetachedKeyPair } from '../support/detached-key-pair.js';
import type { SigningKey, TestProvider } from '../support/oidc/test-provider.js';
import { TestClient, type TestServer } from '../support/test-server.js';

/** The address the forged tokens come from, and the good provider's (TRUST_PROXY=1). */
const ATTACKER = '203.0.113.7';
const GOOD_PROVIDER_HOST = '198.51.100.20';
/** LOGIN_MAX_FAILURES=2: an address may fail 20 times a window (ADDRESS_FAILURE_FACTOR 10). */
const ADDRESS_BUDGET = 20;

/** An RSA public key of `bits` bits (importable, not a real key pair); `e` base64url. */
function craftedRsa(bits: number, members: Record<string, unknown>, e = 'AQAB'): JsonWebKey {
  const n = randomBytes(bits / 8);
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  return { kty: 'RSA', n: n.toString('base64url'), e, ...members };
}

function forgerKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateDetachedKeyPair({ type: 'rsa', modulusLength: 2048 });
  const members = { kid, alg: 'RS256', use: 'sig' } as const;
  return {
    kid,
    alg: 'RS256',
    privateJwk: { ...privateKey.export({ format: 'jwk' }), ...members },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), ...members },
  };
}

const backchannel = (server: TestServer, logoutToken: string, from: string) =>
  new TestClient(server.url).request('POST', '/api/v1/openid/backchannel-logout/', {
    body: new URLSearchParams({ logout_token: logoutToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
  });

/** A metric's value in the text exposition (0 when the series is absent). */
async function metric(server: TestServer, series: string): Promise<number> {
  const text = await server.gatehouse.metrics.render();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const checks = (server: TestServer, provider: string) =>
  metric(server, `gatehouse_sso_signature_checks_total{provider="${provider}"}`);
const refusedKeys = (server: TestServer, reason: string) =>
  metric(server, `gatehouse_sso_jwks_keys_refused_total{provider="evil",reason="${reason}"}`);
const jwksRequests = (tp: TestProvider) => tp.requests.filter((request) => request.url === '/jwks').length;

describe("a hostile customer's provider and the others", () => {
  let deployment: TwoCustomers;
  let server: TestServer;
  let good: TestProvider;
  let evil: TestProvider;
  const forger = forgerKey('shared');
  /** A forged logout token naming the hostile provider (its iss and aud), signed by no key of it. */
  const forged = (kid = 'shared') =>
    evil.signLogoutToken({ sub: 'someone', jti: randomUUID() }, { key: forger, header: { kid } });
  const goodLogin = () =>
    ssoLogin(new TestClient(server.url), good, { accountId: 'ann-1' }).then((response) => response.status);

  beforeAll(async () => {
    deployment = await startTwoCustomers('evil', { LOGIN_MAX_FAILURES: '2' });
    ({ server, environment: good, registered: evil } = deployment);
    // The hostile key set: keys far too large, exponents far too large, forty keys under one
    // kid (all of them matching a forged token), and the provider's own key.
    const hostile = [
      ...Array.from({ length: 20 }, (_, i) => craftedRsa(16384, { kid: `huge-${i}` })),
      ...Array.from({ length: 10 }, () =>
        craftedRsa(2048, { kid: 'shared' }, randomBytes(512).toString('base64url')),
      ),
      ...Array.from({ length: 40 }, () => craftedRsa(2048, { kid: 'shared' })),
    ];
    evil.hooks.jwks = (jwks) => ({ keys: [...hostile, ...jwks.keys] });
  });

  afterAll(() => deployment?.close());

  it('checks each forged token against a few keys, refuses the oversized keys once, and serves the others meanwhile', async () => {
    const tokens = Array.from({ length: 10 }, () => forged());
    const [login, ...answers] = await Promise.all([
      goodLogin(),
      ...tokens.map((token) => backchannel(server, token, ATTACKER)),
    ]);
    expect(login).toBe(200);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'INVALID_REQUEST' });
    }
    // Forty keys share the forged tokens' kid; each token was checked against three.
    expect(await checks(server, 'evil')).toBe(tokens.length * MAX_KEYS_PER_TOKEN);
    expect(await refusedKeys(server, 'rsa_modulus')).toBe(20);
    expect(await refusedKeys(server, 'rsa_exponent')).toBe(10);
    // One JWKS request for all of them; the good provider's login cost one check of its own key.
    expect(jwksRequests(evil)).toBe(1);
    expect(await checks(server, 'default')).toBe(1);
  });

  it('refuses a key set of a thousand keys whole: forged tokens then cost no signature check', async () => {
    const before = { checks: await checks(server, 'evil'), fetches: jwksRequests(evil) };
    evil.hooks.jwks = () => ({
      keys: Array.from({ length: 1000 }, () => ({ kty: 'RSA', kid: 'shared', n: 'AQAB', e: 'AQAB' })),
    });
    // An unknown kid refetches the set (once, then the cool-down holds).
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => backchannel(server, forged('rotated'), ATTACKER)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
    expect(jwksRequests(evil) - before.fetches).toBe(1);
    expect(await checks(server, 'evil')).toBe(before.checks);
    expect(JWKS_MAX_KEYS).toBeLessThan(1000);
    expect(await goodLogin()).toBe(200);
  });

  it('answers an address that keeps posting forged tokens 429 before checking any, not the good provider', async () => {
    const before = await checks(server, 'evil');
    // 15 failures so far from this address; the budget is 20.
    const answers = [];
    for (let i = 0; i < ADDRESS_BUDGET - 15 + 3; i++)
      answers.push(await backchannel(server, forged(), ATTACKER));
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    const refused = answers.at(-1)!;
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'TOO_MANY_ATTEMPTS' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refused ones cost no signature check.
    expect(await checks(server, 'evil')).toBe(before + 5 * MAX_KEYS_PER_TOKEN);
    expect(await metric(server, 'gatehouse_throttled_attempts_total{operation="backchannel_logout"}')).toBe(
      3,
    );

    // The good provider's own logout token, from its own address, still ends its session.
    const login = await ssoLogin(new TestClient(server.url), good, { accountId: 'ann-1' });
    expect(login.status).toBe(200);
    const cookie = login.setCookies.find((line) => line.startsWith('sessionid='))!.split(';')[0]!;
    const token = good.signLogoutToken({ sub: 'ann-1', jti: randomUUID() });
    expect((await backchannel(server, token, GOOD_PROVIDER_HOST)).status).toBe(200);
    expect((await new TestClient(server.url).get('/api/v1/session/', { cookie })).status).toBe(401);
  });
});
