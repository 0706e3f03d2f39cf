import { createPrivateKey, type JsonWebKey, webcrypto } from 'node:crypto';
import { type ClientAuth, ClientSecretBasic, ClientSecretPost, PrivateKeyJwt } from 'openid-client';
import type { ClientAuthMethod } from '../../domain/sso/provider-registration.js';

/** How this service proves itself at a provider's token endpoint, with what it holds for that. */
export interface ClientCredentials {
  clientAuth: ClientAuthMethod;
  clientSecret?: string;
  /** Private key (JWK, with `kid` when the provider knows several) for private_key_jwt. */
  privateKeyJwk?: JsonWebKey;
}

const RSA_ALGS: Record<string, { name: string; hash: string }> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
  PS384: { name: 'RSA-PSS', hash: 'SHA-384' },
  PS512: { name: 'RSA-PSS', hash: 'SHA-512' },
};

function importAlgorithm(jwk: JsonWebKey): { name: string; hash?: string; namedCurve?: string } {
  switch (jwk.kty) {
    case 'RSA': {
      const alg = RSA_ALGS[(jwk as { alg?: string }).alg ?? 'RS256'];
      if (!alg) throw new Error('privateKeyJwk: unsupported RSA "alg"');
      return alg;
    }
    case 'EC':
      if (jwk.crv !== 'P-256' && jwk.crv !== 'P-384' && jwk.crv !== 'P-521') {
        throw new Error('privateKeyJwk: unsupported EC curve');
      }
      return { name: 'ECDSA', namedCurve: jwk.crv };
    case 'OKP':
      if (jwk.crv !== 'Ed25519') throw new Error('privateKeyJwk: unsupported OKP curve');
      return { name: 'Ed25519' };
    default:
      throw new Error('privateKeyJwk: unsupported key type');
  }
}

/**
 * Refuses, when the adapter is built, credentials that could never authenticate: a method without
 * its secret or key, or a key that is not a private key of a supported kind. Start-up then names
 * the setting instead of the first login failing.
 */
export function checkClientCredentials(credentials: ClientCredentials): void {
  if (credentials.clientAuth === 'private_key_jwt') {
    if (!credentials.privateKeyJwk) throw new Error('private_key_jwt needs privateKeyJwk');
    importAlgorithm(credentials.privateKeyJwk);
    const key = createPrivateKey({ key: credentials.privateKeyJwk, format: 'jwk' });
    if (key.type !== 'private') throw new Error('privateKeyJwk is not a private key');
  } else if (!credentials.clientSecret) {
    throw new Error(`${credentials.clientAuth} needs clientSecret`);
  }
}

/** openid-client's client authentication for checked credentials (`checkClientCredentials`). */
export async function clientAuthentication(credentials: ClientCredentials): Promise<ClientAuth> {
  switch (credentials.clientAuth) {
    case 'client_secret_basic':
      return ClientSecretBasic(credentials.clientSecret);
    case 'client_secret_post':
      return ClientSecretPost(credentials.clientSecret);
    case 'private_key_jwt': {
      const jwk = credentials.privateKeyJwk!;
      const {
        kid,
        alg: _alg,
        use: _use,
        key_ops: _ops,
        ...material
      } = jwk as JsonWebKey & Record<string, unknown>;
      const key = await webcrypto.subtle.importKey(
        'jwk',
        material as webcrypto.JsonWebKey,
        importAlgorithm(jwk),
        false,
        ['sign'],
      );
      return PrivateKeyJwt(typeof kid === 'string' ? { key, kid } : key);
    }
  }
}
