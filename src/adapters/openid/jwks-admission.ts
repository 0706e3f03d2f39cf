import { createPublicKey } from 'node:crypto';
import type { JWK } from 'jose';
import { ssoError } from './openid-errors.js';

/**
 * What one provider's key set may cost this service. Keys come from a document the provider (or
 * anyone in its place) writes, and are used for tokens anyone may post to the back-channel logout
 * endpoint: without bounds, one customer's key set could keep the event loop and the crypto
 * thread pool busy for every customer.
 */
/** A key set with more entries than this is refused whole (real providers publish a handful). */
export const JWKS_MAX_KEYS = 100;
/** RSA moduli outside this range are refused: below is weak (RFC 7518 3.3), above is slow. */
export const RSA_MIN_BITS = 2048;
export const RSA_MAX_BITS = 4096;
/** The largest RSA public exponent kept (65537 in practice): verification time grows with it. */
export const RSA_MAX_EXPONENT = 2 ** 32 - 1;

/** Why a JWKS entry was left out. */
export const KEY_REFUSALS = ['not_an_object', 'private', 'unusable', 'rsa_modulus', 'rsa_exponent'] as const;
export type KeyRefusal = (typeof KEY_REFUSALS)[number];

export interface AdmittedKeys {
  keys: JWK[];
  refused: KeyRefusal[];
}

/** Base64url characters of an RSA modulus past which it cannot be within RSA_MAX_BITS. */
const RSA_MAX_N_CHARS = Math.ceil((RSA_MAX_BITS / 8 + 1) * (4 / 3));
/** Base64url characters of an exponent past which it cannot be within RSA_MAX_EXPONENT. */
const RSA_MAX_E_CHARS = 8;

/**
 * The keys of a JWKS document that this service will ever use, each checked once when the set is
 * fetched (never per token): an object, public only, one node:crypto can import, and for RSA a
 * modulus of RSA_MIN_BITS..RSA_MAX_BITS and an odd exponent of 3..RSA_MAX_EXPONENT. The size
 * checks on the encoded members come first, so an oversized key is refused before any import.
 */
export function admitKeys(document: unknown): AdmittedKeys {
  const entries = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(entries)) throw ssoError('SSO_INVALID', 'provider JWKS is malformed');
  if (entries.length > JWKS_MAX_KEYS) {
    throw ssoError('SSO_INVALID', `provider JWKS has more than ${JWKS_MAX_KEYS} keys`);
  }
  const admitted: AdmittedKeys = { keys: [], refused: [] };
  for (const entry of entries) {
    const refusal = refusalOf(entry);
    if (refusal) admitted.refused.push(refusal);
    else admitted.keys.push(entry as JWK);
  }
  return admitted;
}

function refusalOf(entry: unknown): KeyRefusal | null {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return 'not_an_object';
  const jwk = entry as Record<string, unknown>;
  // A JWKS must not hand us private material; never use such an entry.
  if (jwk.d !== undefined) return 'private';
  if (jwk.kty === 'RSA') {
    if (typeof jwk.n !== 'string' || jwk.n.length > RSA_MAX_N_CHARS) return 'rsa_modulus';
    if (typeof jwk.e !== 'string' || jwk.e.length > RSA_MAX_E_CHARS) return 'rsa_exponent';
  }
  let details: ReturnType<typeof createPublicKey>['asymmetricKeyDetails'];
  try {
    const { kid: _k, alg: _a, use: _u, key_ops: _o, ext: _x, ...material } = jwk;
    const key = createPublicKey({ key: material as import('node:crypto').JsonWebKey, format: 'jwk' });
    details = key.asymmetricKeyDetails;
  } catch {
    return 'unusable';
  }
  if (jwk.kty !== 'RSA') return null;
  const bits = details?.modulusLength ?? 0;
  if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) return 'rsa_modulus';
  const exponent = details?.publicExponent ?? 0n;
  if (exponent < 3n || exponent > BigInt(RSA_MAX_EXPONENT) || exponent % 2n === 0n) return 'rsa_exponent';
  return null;
}
