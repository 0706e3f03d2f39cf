import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  admitKeys,
  JWKS_MAX_KEYS,
  type KeyRefusal,
  RSA_MAX_EXPONENT,
} from '../../src/adapters/openid/jwks-admission.js';
import {
  JwtSignatureVerifier,
  MAX_KEYS_PER_TOKEN,
} from '../../src/adapters/openid/jwt-signature-verifier.js';
import { jwksSource, refusal, signJws, testKey } from '../support/jws.js';

/**
 * What one provider's key set may cost: keys are checked once when the set is fetched (size of
 * the RSA modulus and exponent, private material, importability, their number), and a token is
 * checked against a few keys at most, however many match it. Counted, never timed: the verifier
 * reports each signature check and each refused key.
 */

/** An RSA public key of exactly `bits` bits with exponent `e` (importable; not a real key pair). */
function craftedRsa(
  bits: number,
  e: bigint | string = 65537n,
  members: Record<string, unknown> = {},
): Record<string, unknown> {
  const bytes = randomBytes(Math.ceil(bits / 8));
  const topBits = bits % 8 || 8;
  bytes[0] = (bytes[0]! & ((1 << topBits) - 1)) | (1 << (topBits - 1));
  bytes[bytes.length - 1]! |= 1;
  const hex = typeof e === 'string' ? '' : e.toString(16);
  const exponent =
    typeof e === 'string' ? e : Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
  return { kty: 'RSA', n: bytes.toString('base64url'), e: exponent, ...members };
}

function counted(keys: unknown[], algorithm = 'RS256') {
  const counts = { checks: 0, refused: [] as KeyRefusal[] };
  const source = jwksSource(keys);
  const verifier = new JwtSignatureVerifier({
    algorithm,
    loadJwks: source.load,
    missRefetchCooldownMs: 10_000,
    observer: {
      signatureChecked: () => {
        counts.checks += 1;
      },
      keyRefused: (reason) => counts.refused.push(reason),
    },
  });
  return { counts, source, verifier };
}

describe('admitKeys: the keys of a fetched JWKS this service will ever use', () => {
  it('keeps RSA moduli of 2048 to 4096 bits and refuses the others, the huge ones before importing', () => {
    const kept = [craftedRsa(2048), craftedRsa(3072), craftedRsa(4096)];
    const refused = [craftedRsa(2047), craftedRsa(4097), craftedRsa(8192), craftedRsa(16384)];
    expect(admitKeys({ keys: [...kept, ...refused] })).toEqual({
      keys: kept,
      refused: ['rsa_modulus', 'rsa_modulus', 'rsa_modulus', 'rsa_modulus'],
    });
  });

  it('keeps an odd RSA exponent of 3 to 2^32-1 and refuses the others, the huge ones before importing', () => {
    const kept = [craftedRsa(2048, 65537n), craftedRsa(2048, 3n), craftedRsa(2048, BigInt(RSA_MAX_EXPONENT))];
    const refused = [
      craftedRsa(2048, 1n),
      craftedRsa(2048, 65536n),
      craftedRsa(2048, BigInt(RSA_MAX_EXPONENT) + 2n),
      craftedRsa(2048, randomBytes(512).toString('base64url')),
    ];
    expect(admitKeys({ keys: [...kept, ...refused] })).toEqual({
      keys: kept,
      refused: ['rsa_exponent', 'rsa_exponent', 'rsa_exponent', 'rsa_exponent'],
    });
  });

  it('refuses private, symmetric, unimportable and non-object entries, keeping the rest', () => {
    const ec = testKey('ES256', { kid: 'ec' });
    const ed = testKey('EdDSA', { kid: 'ed' });
    const privateJwk = ec.privateKey.export({ format: 'jwk' });
    const admitted = admitKeys({
      keys: [
        ec.jwk,
        privateJwk,
        { kty: 'oct', k: 'c2VjcmV0' },
        { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' },
        'k',
        ed.jwk,
      ],
    });
    expect(admitted).toEqual({
      keys: [ec.jwk, ed.jwk],
      refused: ['private', 'unusable', 'unusable', 'not_an_object'],
    });
  });

  it(`refuses a document of more than ${JWKS_MAX_KEYS} entries whole, before looking at any`, () => {
    const key = craftedRsa(2048);
    expect(admitKeys({ keys: Array(JWKS_MAX_KEYS).fill(key) }).keys).toHaveLength(JWKS_MAX_KEYS);
    expect(() => admitKeys({ keys: Array(JWKS_MAX_KEYS + 1).fill(key) })).toThrow(
      `provider JWKS has more than ${JWKS_MAX_KEYS} keys`,
    );
  });
});

describe('JwtSignatureVerifier: the work one token may cost', () => {
  // Forty keys that all match a forged token: same kid, same type, no alg, use or key_ops.
  const sharingKid = Array.from({ length: 40 }, () => craftedRsa(2048, 65537n, { kid: 'shared' }));
  const forger = testKey('RS256', { kid: 'shared' });

  it(`checks a token against ${MAX_KEYS_PER_TOKEN} keys at most, however many share its kid`, async () => {
    const { counts, verifier } = counted(sharingKid);
    for (let i = 0; i < 5; i++) {
      expect(await refusal(verifier, signJws(forger))).toBe('JWS signature verification failed');
    }
    expect(counts.checks).toBe(5 * MAX_KEYS_PER_TOKEN);
  });

  it(`checks a token without kid against ${MAX_KEYS_PER_TOKEN} keys of its type at most`, async () => {
    const withoutKid = sharingKid.map(({ kid: _kid, ...key }) => key);
    const { counts, verifier } = counted(withoutKid);
    expect(await refusal(verifier, signJws(forger, { kid: undefined }))).toBe(
      'JWS signature verification failed',
    );
    expect(counts.checks).toBe(MAX_KEYS_PER_TOKEN);
  });

  it('still verifies a token whose key is among the first candidates, with one check', async () => {
    const { counts, verifier } = counted([forger.jwk, ...sharingKid]);
    await expect(verifier.verify(signJws(forger))).resolves.toHaveProperty('payload.sub', 'alice');
    expect(counts.checks).toBe(1);
  });

  it('checks no key a token cannot match: a key set of other kids costs a token none', async () => {
    const { counts, verifier } = counted(sharingKid);
    expect(await refusal(verifier, signJws(testKey('RS256', { kid: 'other' })))).toBe(
      'no provider key matches the JWS',
    );
    expect(counts.checks).toBe(0);
  });

  it('refuses oversized keys once, when the set is fetched, never per token', async () => {
    const hostile = [
      ...Array.from({ length: 5 }, () => craftedRsa(16384, 65537n, { kid: 'shared' })),
      ...Array.from({ length: 5 }, () =>
        craftedRsa(2048, randomBytes(256).toString('base64url'), { kid: 'shared' }),
      ),
    ];
    const { counts, source, verifier } = counted([...hostile, forger.jwk]);
    for (let i = 0; i < 5; i++)
      await expect(verifier.verify(signJws(forger))).resolves.toHaveProperty('payload');
    expect(source.fetches).toBe(1);
    expect(counts.refused).toEqual([...Array(5).fill('rsa_modulus'), ...Array(5).fill('rsa_exponent')]);
    // Only the one key left matches: one check per token.
    expect(counts.checks).toBe(5);
  });

  it('a key set of too many keys costs a token no signature check at all', async () => {
    const { counts, verifier } = counted(Array(JWKS_MAX_KEYS + 1).fill(forger.jwk));
    expect(await refusal(verifier, signJws(forger))).toBe(
      `provider JWKS has more than ${JWKS_MAX_KEYS} keys`,
    );
    expect(counts.checks).toBe(0);
  });
});
