/**
 * Keys and compact JWS for the verifier's own tests (test/unit/jwt-signature-verifier-*.test.ts), signed
 * with node:crypto for every algorithm the verifier accepts, and a JWKS loader that counts its
 * fetches. Kept apart from the test provider's signer, which signs only what oidc-provider uses.
 */
import { constants, type JsonWebKey, type KeyObject, type SignKeyObjectInput, sign } from 'node:crypto';
import { expect } from 'vitest';
import { JwtSignatureVerifier, type VerifiedJws } from '../../src/adapters/openid/jwt-signature-verifier.js';
import { DomainError } from '../../src/domain/shared/domain-error.js';
import { generateDetachedKeyPair, type KeyPairShape } from './detached-key-pair.js';

export type JwsAlg =
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'
  | 'Ed25519';

export const ALL_ALGS: readonly JwsAlg[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const HASH: Record<JwsAlg, string | null> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
  EdDSA: null,
  Ed25519: null,
};

export interface TestKey {
  alg: JwsAlg;
  privateKey: KeyObject;
  /** The public JWK as a provider would publish it (members added per test). */
  jwk: JsonWebKey & Record<string, unknown>;
}

/** The key an algorithm is normally signed with. */
export function shapeFor(alg: JwsAlg): KeyPairShape {
  if (alg.startsWith('RS') || alg.startsWith('PS')) return { type: 'rsa', modulusLength: 2048 };
  if (alg === 'ES256') return { type: 'ec', namedCurve: 'P-256' };
  if (alg === 'ES384') return { type: 'ec', namedCurve: 'P-384' };
  if (alg === 'ES512') return { type: 'ec', namedCurve: 'P-521' };
  return { type: 'ed25519' };
}

/** A fresh key pair for `alg` (or of another shape, for the refusals); `members` go into the JWK. */
export function testKey(alg: JwsAlg, members: Record<string, unknown> = {}, shape = shapeFor(alg)): TestKey {
  const pair = generateDetachedKeyPair(shape);
  return {
    alg,
    privateKey: pair.privateKey,
    jwk: { ...pair.publicKey.export({ format: 'jwk' }), ...members },
  };
}

export const b64u = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS over `payload` signed with `key`; the header is `{ alg, kid }` (the JWK's kid)
 * with `header` merged over it (a member set to undefined is left out). The signature is always
 * `key.alg`'s, whatever the header claims.
 */
export function signJws(
  key: TestKey,
  header: Record<string, unknown> = {},
  payload: unknown = { sub: 'alice' },
): string {
  return signRawJws(key, { alg: key.alg, kid: key.jwk.kid, ...header }, b64u(payload));
}

/** A JWS with `encodedPayload` taken as it is (for payloads that are not JSON objects). */
export function signRawJws(key: TestKey, header: Record<string, unknown>, encodedPayload: string): string {
  const input = `${b64u(JSON.parse(JSON.stringify(header)))}.${encodedPayload}`;
  return `${input}.${signature(key, input).toString('base64url')}`;
}

function signature(key: TestKey, input: string): Buffer {
  const hash = HASH[key.alg];
  const options: SignKeyObjectInput = key.alg.startsWith('PS')
    ? {
        key: key.privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      }
    : key.alg.startsWith('ES')
      ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' }
      : { key: key.privateKey };
  return sign(hash, Buffer.from(input), options);
}

/**
 * A JWKS loader that serves `{ keys }` (changeable between fetches), or what `document` gives
 * when set, and counts its fetches.
 */
export function jwksSource(keys: unknown[] = []) {
  const source = {
    keys,
    fetches: 0,
    document: null as (() => unknown) | null,
    load: async () => {
      source.fetches += 1;
      return source.document ? source.document() : { keys: source.keys };
    },
  };
  return source;
}

/** A verifier expecting `algorithm` (one per provider, as configured) over a JWKS of `keys`. */
export function verifierOf(keys: unknown[], algorithm = 'RS256'): JwtSignatureVerifier {
  return new JwtSignatureVerifier({
    algorithm,
    loadJwks: jwksSource(keys).load,
    missRefetchCooldownMs: 10_000,
  });
}

/** The verification's refusal: always SSO_INVALID, with the reason in the message. */
export async function refusal(
  verifier: JwtSignatureVerifier,
  jwt: string,
  options: { fromProvider?: boolean } = {},
): Promise<string> {
  const error = await verifier.verify(jwt, options).then(
    (verified: VerifiedJws) => verified,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('SSO_INVALID');
  const reason = /\((.*)\)$/.exec((error as DomainError).message)?.[1];
  expect((error as DomainError).message).toBe(`The OpenID provider response failed validation (${reason})`);
  return reason ?? '';
}
