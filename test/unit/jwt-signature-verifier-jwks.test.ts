import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JwtSignatureVerifier } from '../../src/adapters/openid/jwt-signature-verifier.js';
import { jwksSource, refusal, signJws, testKey } from '../support/jws.js';

/**
 * When the verifier fetches the provider's JWKS: once for many tokens, again when it is ten
 * minutes old, again for an unknown kid (a key rotation), but not for every forged token with a
 * made-up kid (the refetch cool-down, a denial-of-service guard). Time is the injected clock.
 */
const COOLDOWN_MS = 10_000;
const MAX_AGE_MS = 10 * 60_000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2025-01-01T00:00:00Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

function setup() {
  const old = testKey('ES256', { kid: 'old' });
  const source = jwksSource([old.jwk]);
  const verifier = new JwtSignatureVerifier({
    algorithm: 'ES256',
    loadJwks: source.load,
    missRefetchCooldownMs: COOLDOWN_MS,
  });
  return { old, source, verifier };
}

describe('JwtSignatureVerifier: fetching the JWKS', () => {
  it('fetches once for many tokens, and once for tokens verified at the same moment', async () => {
    const { old, source, verifier } = setup();
    await Promise.all([verifier.verify(signJws(old)), verifier.verify(signJws(old))]);
    await verifier.verify(signJws(old));
    expect(source.fetches).toBe(1);
  });

  it('fetches again once the cached set is ten minutes old, not before', async () => {
    const { old, source, verifier } = setup();
    await verifier.verify(signJws(old));
    vi.advanceTimersByTime(MAX_AGE_MS - 1);
    await verifier.verify(signJws(old));
    expect(source.fetches).toBe(1);
    vi.advanceTimersByTime(1);
    await verifier.verify(signJws(old));
    expect(source.fetches).toBe(2);
  });

  it('fetches on first use whatever the clock says, even at the epoch', async () => {
    vi.setSystemTime(0);
    const { old, source, verifier } = setup();
    await expect(verifier.verify(signJws(old))).resolves.toHaveProperty('payload');
    expect(source.fetches).toBe(1);
  });

  it('a fresh fetch that lacks the kid is not followed by a second one', async () => {
    const { source, verifier } = setup();
    expect(await refusal(verifier, signJws(testKey('ES256', { kid: 'unknown' })))).toBe(
      'no provider key matches the JWS',
    );
    expect(source.fetches).toBe(1);
  });

  it('an unknown kid refetches the JWKS: a key rotated in is found', async () => {
    const { old, source, verifier } = setup();
    await verifier.verify(signJws(old));
    const rotated = testKey('ES256', { kid: 'new' });
    source.keys = [old.jwk, rotated.jwk];
    await expect(verifier.verify(signJws(rotated))).resolves.toHaveProperty('header.kid', 'new');
    expect(source.fetches).toBe(2);
  });

  it('after a refetch for an unknown kid, the next waits for the cool-down to pass', async () => {
    const { old, source, verifier } = setup();
    await verifier.verify(signJws(old));
    const forged = signJws(testKey('ES256', { kid: 'made-up' }));
    await refusal(verifier, forged);
    expect(source.fetches).toBe(2);
    // A flood of forged tokens within the cool-down costs no request to the provider.
    for (let i = 0; i < 5; i++) await refusal(verifier, forged);
    vi.advanceTimersByTime(COOLDOWN_MS - 1);
    await refusal(verifier, forged);
    expect(source.fetches).toBe(2);
    vi.advanceTimersByTime(1);
    await refusal(verifier, forged);
    expect(source.fetches).toBe(3);
  });

  it('an ID token from the provider itself refetches even within the cool-down', async () => {
    const { old, source, verifier } = setup();
    await verifier.verify(signJws(old));
    await refusal(verifier, signJws(testKey('ES256', { kid: 'made-up' })));
    const rotated = testKey('ES256', { kid: 'new' });
    source.keys = [rotated.jwk];
    await expect(verifier.verify(signJws(rotated), { fromProvider: true })).resolves.toHaveProperty(
      'header.kid',
      'new',
    );
    expect(source.fetches).toBe(3);
  });

  it.each([
    ['no document', null],
    ['no keys', {}],
    ['null keys', { keys: null }],
    ['keys that are not a list', { keys: { kid: 'k' } }],
  ])('refuses a JWKS with %s, and fetches again after the cool-down', async (_what, document) => {
    const { old, source, verifier } = setup();
    source.document = () => document;
    expect(await refusal(verifier, signJws(old))).toBe('provider JWKS is malformed');
    source.document = null;
    // Within the cool-down, a token anyone may post gets the same answer without a request.
    expect(await refusal(verifier, signJws(old))).toBe('provider JWKS is malformed');
    expect(source.fetches).toBe(1);
    vi.advanceTimersByTime(COOLDOWN_MS);
    await expect(verifier.verify(signJws(old))).resolves.toHaveProperty('payload');
    expect(source.fetches).toBe(2);
  });

  it("refetches a JWKS that just failed at once for the provider's own ID token", async () => {
    const { old, source, verifier } = setup();
    source.document = () => null;
    expect(await refusal(verifier, signJws(old))).toBe('provider JWKS is malformed');
    source.document = null;
    await expect(verifier.verify(signJws(old), { fromProvider: true })).resolves.toHaveProperty('payload');
    expect(source.fetches).toBe(2);
  });
});
