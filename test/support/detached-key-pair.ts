import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/** The kinds of key pair the tests make. */
export type KeyPairShape =
  | { type: 'rsa'; modulusLength: number }
  | { type: 'ec'; namedCurve: string }
  | { type: 'ed25519' }
  | { type: 'ed448' };

/**
 * A fresh key pair whose halves belong to no key-generation job: generated as DER and imported
 * again. Node 20 deadlocks on a freshly generated key otherwise: exporting it (as a JWK) holds the
 * key's mutex, and a garbage collection during the export can finalise the job that generated it,
 * whose destructor takes the same mutex (`KeyPairGenConfig`); the process then waits forever with
 * no CPU used. Seen here as a test worker stuck in `ExportJWKRsaKey` -> GC -> `~KeyGenJob`.
 */
export function generateDetachedKeyPair(shape: KeyPairShape): {
  privateKey: KeyObject;
  publicKey: KeyObject;
} {
  const { type, ...parameters } = shape;
  const encoded = generateKeyPairSync(type as 'rsa', {
    ...(parameters as { modulusLength: number }),
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
    publicKeyEncoding: { type: 'spki', format: 'der' },
  });
  return {
    privateKey: createPrivateKey({ key: encoded.privateKey, format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({ key: encoded.publicKey, format: 'der', type: 'spki' }),
  };
}
