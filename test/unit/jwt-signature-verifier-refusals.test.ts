import { describe, expect, it } from 'vitest';
import { b64u, refusal, signJws, signRawJws, testKey, verifierOf } from '../support/jws.js';

/**
 * Each refusal of the JWS verifier, by the reason it gives: every token here is otherwise valid
 * (signed by a key of the JWKS), so a removed check lets it through instead of hiding behind a
 * later one. Logout tokens reach this code from an unauthenticated endpoint.
 */
describe('JwtSignatureVerifier refuses, each for its own reason', () => {
  const key = testKey('RS256', { kid: 'k', alg: 'RS256', use: 'sig' });
  const verifier = () => verifierOf([key.jwk]);

  it('a compact serialisation without exactly three parts', async () => {
    const jwt = signJws(key);
    expect(await refusal(verifier(), jwt.split('.').slice(0, 2).join('.'))).toBe('not a signed JWT');
    expect(await refusal(verifier(), `${jwt}.x`)).toBe('not a signed JWT');
  });

  it.each([
    ['not JSON', Buffer.from('{alg').toString('base64url')],
    ['null', b64u(null)],
    ['a number', b64u(7)],
    ['an array', b64u([{ alg: 'RS256' }])],
  ])('a header that is %s', async (_what, header) => {
    expect(await refusal(verifier(), `${header}.${b64u({ sub: 'a' })}.c2ln`)).toBe('malformed JWT header');
  });

  it.each([
    ['not JSON', Buffer.from('sub').toString('base64url')],
    ['null', b64u(null)],
    ['an array', b64u(['sub'])],
  ])('a correctly signed payload that is %s', async (_what, payload) => {
    expect(await refusal(verifier(), signRawJws(key, { alg: 'RS256', kid: 'k' }, payload))).toBe(
      'malformed JWT payload',
    );
  });

  it.each([
    ['none', 'none'],
    ['HS256', 'HS256'],
    ['missing', undefined],
    ['not a string', 256],
    ['a list naming an allowed one', ['RS256']],
    ['an inherited property name', 'toString'],
  ])('an algorithm that is %s', async (_what, alg) => {
    expect(await refusal(verifier(), signJws(key, { alg }))).toBe('JWS algorithm not allowed');
  });

  it('a crit header, even an empty one', async () => {
    expect(await refusal(verifier(), signJws(key, { crit: ['exp'], exp: 1 }))).toBe(
      'unsupported JWS crit header',
    );
    expect(await refusal(verifier(), signJws(key, { crit: [] }))).toBe('unsupported JWS crit header');
  });

  it('a b64 header, whatever its value', async () => {
    expect(await refusal(verifier(), signJws(key, { b64: false }))).toBe('unsupported JWS b64 header');
    expect(await refusal(verifier(), signJws(key, { b64: true }))).toBe('unsupported JWS b64 header');
  });

  it('a kid that is not a string', async () => {
    expect(await refusal(verifier(), signJws(key, { kid: 1 }))).toBe('malformed JWS kid');
  });

  it('an empty signature', async () => {
    const [header, payload] = signJws(key).split('.');
    expect(await refusal(verifier(), `${header}.${payload}.`)).toBe('JWS signature missing');
  });

  it('a kid the JWKS does not have', async () => {
    expect(await refusal(verifier(), signJws(key, { kid: 'other' }))).toBe('no provider key matches the JWS');
  });

  it('an RSA key under 2048 bits, whatever the padding (left out of the set when fetched)', async () => {
    for (const alg of ['RS256', 'PS256'] as const) {
      const small = testKey(alg, { kid: 'small' }, { type: 'rsa', modulusLength: 1024 });
      expect(await refusal(verifierOf([small.jwk], alg), signJws(small))).toBe(
        'no provider key matches the JWS',
      );
    }
    // 2048 bits is enough.
    const enough = testKey('PS256', { kid: 'k' }, { type: 'rsa', modulusLength: 2048 });
    await expect(verifierOf([enough.jwk], 'PS256').verify(signJws(enough))).resolves.toHaveProperty(
      'payload',
    );
  });
});

describe('JwtSignatureVerifier uses no JWKS entry that is not meant for this JWS', () => {
  // Each entry below holds the very key that signed the token; one member disqualifies it.
  it.each([
    ['under another kid', { kid: 'other' }],
    ['for another algorithm', { alg: 'RS384' }],
    ['for encryption (use)', { use: 'enc' }],
    ['whose key_ops lack verify', { key_ops: ['sign', 'encrypt'] }],
  ])('a key %s', async (_what, member) => {
    const key = testKey('RS256', { kid: 'k' });
    expect(await refusal(verifierOf([{ ...key.jwk, ...member }]), signJws(key))).toBe(
      'no provider key matches the JWS',
    );
    // The same key without that member verifies.
    await expect(verifierOf([key.jwk]).verify(signJws(key))).resolves.toHaveProperty('payload');
  });

  it('a key of another type than the algorithm names', async () => {
    // An RSA key dressed with the curve of ES256 verifies an RSA signature under `alg: ES256`
    // once the key type is not compared.
    const rsa = testKey('RS256', { kid: 'k', crv: 'P-256' });
    expect(await refusal(verifierOf([rsa.jwk], 'ES256'), signJws(rsa, { alg: 'ES256' }))).toBe(
      'no provider key matches the JWS',
    );
  });

  it('a key on another curve than the algorithm names', async () => {
    const p384 = testKey('ES256', { kid: 'k' }, { type: 'ec', namedCurve: 'P-384' });
    expect(await refusal(verifierOf([p384.jwk], 'ES256'), signJws(p384))).toBe(
      'no provider key matches the JWS',
    );
    const ed448 = testKey('EdDSA', { kid: 'k' }, { type: 'ed448' });
    expect(await refusal(verifierOf([ed448.jwk], 'EdDSA'), signJws(ed448))).toBe(
      'no provider key matches the JWS',
    );
  });

  it('a key that carries private material (d)', async () => {
    const key = testKey('ES256', { kid: 'k' });
    const privateJwk = { ...key.privateKey.export({ format: 'jwk' }), kid: 'k' };
    expect(await refusal(verifierOf([privateJwk], 'ES256'), signJws(key))).toBe(
      'no provider key matches the JWS',
    );
  });
});
