import { describe, expect, it } from 'vitest';
import { ALL_ALGS, refusal, signJws, testKey, verifierOf } from '../support/jws.js';

describe('JwtSignatureVerifier: every algorithm it accepts, signed and verified', () => {
  it.each(ALL_ALGS)('verifies %s and returns the header and payload', async (alg) => {
    const key = testKey(alg, { kid: `k-${alg}`, alg, use: 'sig', key_ops: ['verify'] });
    const verified = await verifierOf([key.jwk], alg).verify(signJws(key, {}, { sub: 'alice', n: 1 }));
    expect(verified).toEqual({ header: { alg, kid: `k-${alg}` }, payload: { sub: 'alice', n: 1 } });
  });

  it.each(ALL_ALGS)('refuses %s with one bit of the signature flipped', async (alg) => {
    const key = testKey(alg, { kid: 'k' });
    const jwt = signJws(key);
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const bytes = Buffer.from(signature, 'base64url');
    bytes[bytes.length - 1]! ^= 0x01;
    expect(
      await refusal(verifierOf([key.jwk], alg), `${header}.${payload}.${bytes.toString('base64url')}`),
    ).toBe('JWS signature verification failed');
  });

  it('cannot be built to expect an algorithm it does not verify', () => {
    for (const algorithm of ['HS256', 'none', 'toString', ''])
      expect(() => verifierOf([], algorithm)).toThrow(`JWS algorithm ${algorithm} is not supported`);
  });

  it('uses a key without kid, alg, use or key_ops for a JWS without kid', async () => {
    const key = testKey('ES256');
    await expect(verifierOf([key.jwk], 'ES256').verify(signJws(key))).resolves.toHaveProperty(
      'payload.sub',
      'alice',
    );
  });

  it('tries every matching key when the JWS names none', async () => {
    const other = testKey('RS256', { kid: 'other' });
    const key = testKey('RS256', { kid: 'right' });
    const jwt = signJws(key, { kid: undefined });
    await expect(verifierOf([other.jwk, key.jwk]).verify(jwt)).resolves.toHaveProperty('header', {
      alg: 'RS256',
    });
  });

  it('leaves out a JWKS entry it cannot import and uses the next', async () => {
    const key = testKey('RS256', { kid: 'k' });
    // No modulus: it cannot be imported, so it is never a candidate.
    const broken = { kty: 'RSA', kid: 'k', e: 'AQAB' };
    await expect(verifierOf([broken, key.jwk]).verify(signJws(key))).resolves.toHaveProperty('payload');
    expect(await refusal(verifierOf([broken]), signJws(key))).toBe('no provider key matches the JWS');
  });

  it('ignores a member a key type does not have (crv on an RSA key)', async () => {
    const key = testKey('RS256', { kid: 'k', crv: 'P-256' });
    await expect(verifierOf([key.jwk]).verify(signJws(key))).resolves.toHaveProperty('payload');
  });

  it('skips the JWKS entries that are not objects', async () => {
    const key = testKey('EdDSA', { kid: 'k' });
    await expect(
      verifierOf([null, 'k', 7, ['k'], key.jwk], 'EdDSA').verify(signJws(key)),
    ).resolves.toHaveProperty('payload');
  });
});
