import { constants, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { ssoError } from './openid-errors.js';

/**
 * Asymmetric JWS algorithms the verifier can check; `none` and the HMAC family never. Each verifier
 * accepts exactly one of them, the one its provider is configured with.
 */
const ALGORITHMS: Record<
  string,
  { kty: string; hash: string | null; crv?: string; pss?: boolean; ec?: boolean }
> = {
  RS256: { kty: 'RSA', hash: 'sha256' },
  RS384: { kty: 'RSA', hash: 'sha384' },
  RS512: { kty: 'RSA', hash: 'sha512' },
  PS256: { kty: 'RSA', hash: 'sha256', pss: true },
  PS384: { kty: 'RSA', hash: 'sha384', pss: true },
  PS512: { kty: 'RSA', hash: 'sha512', pss: true },
  ES256: { kty: 'EC', hash: 'sha256', crv: 'P-256', ec: true },
  ES384: { kty: 'EC', hash: 'sha384', crv: 'P-384', ec: true },
  ES512: { kty: 'EC', hash: 'sha512', crv: 'P-521', ec: true },
  EdDSA: { kty: 'OKP', hash: null, crv: 'Ed25519' },
  Ed25519: { kty: 'OKP', hash: null, crv: 'Ed25519' },
};

/** JWKS older than this are fetched again on next use. */
const JWKS_MAX_AGE_MS = 10 * 60_000;

export interface VerifiedJws {
  header: Readonly<Record<string, unknown>>;
  payload: Readonly<Record<string, unknown>>;
}

type Jwk = JsonWebKey & { kid?: string; alg?: string; use?: string; key_ops?: string[] };

export interface JwksVerifierOptions {
  /**
   * The one algorithm accepted (RFC 8725 3.1): a JWS under any other is refused, even when the
   * provider publishes a key for it (algorithm confusion across its own keys).
   */
  algorithm: string;
  /** Fetches the provider's JWKS document (time-outs and HTTPS policy are the caller's). */
  loadJwks: () => Promise<unknown>;
  /**
   * After a JWKS refetch caused by an unknown `kid`, further unknown-`kid` refetches wait this
   * long (a flood of forged tokens must not turn into a flood of JWKS requests).
   */
  missRefetchCooldownMs: number;
}

function invalid(detail: string): Error {
  return ssoError('SSO_INVALID', detail);
}

function parsePart(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw invalid(`malformed JWT ${what}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(`malformed JWT ${what}`);
  return value as Record<string, unknown>;
}

/**
 * Verifies compact JWS signatures against the provider's JWKS with node:crypto. The JWKS is
 * cached; a token whose key is not in the cached set refetches it once.
 */
export class JwksVerifier {
  readonly #options: JwksVerifierOptions;
  #keys: Jwk[] | undefined;
  #fetchedAt = 0;
  #lastMissRefetchAt = Number.NEGATIVE_INFINITY;
  #inflight: Promise<Jwk[]> | undefined;
  readonly #imported = new WeakMap<Jwk, KeyObject>();

  constructor(options: JwksVerifierOptions) {
    if (!Object.hasOwn(ALGORITHMS, options.algorithm)) {
      throw new Error(`JWS algorithm ${options.algorithm} is not supported`);
    }
    this.#options = options;
  }

  /**
   * `fromProvider`: the JWS came straight from the provider over the authenticated back channel
   * (the token endpoint's ID token), so an unknown `kid` always refetches the JWKS: anyone can post
   * a forged logout token with a made-up `kid`, and that must not hold back the refetch a
   * legitimate login needs right after a key rotation.
   */
  async verify(jwt: string, options: { fromProvider?: boolean } = {}): Promise<VerifiedJws> {
    const parts = jwt.split('.');
    if (parts.length !== 3) throw invalid('not a signed JWT');
    const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = parts;
    const header = parsePart(encodedHeader, 'header');
    const alg = this.#options.algorithm;
    if (header.alg !== alg) throw invalid('JWS algorithm not allowed');
    if (header.crit !== undefined) throw invalid('unsupported JWS crit header');
    // RFC 7797: b64 is only meaningful listed in crit, which is refused above; present alone it is
    // a malformed JWS, never one to read as if it were absent.
    if (header.b64 !== undefined) throw invalid('unsupported JWS b64 header');
    if (header.kid !== undefined && typeof header.kid !== 'string') throw invalid('malformed JWS kid');
    const signature = Buffer.from(encodedSignature, 'base64url');
    if (signature.length === 0) throw invalid('JWS signature missing');

    const candidates = await this.#candidates(alg, header.kid as string | undefined, options.fromProvider);
    if (candidates.length === 0) throw invalid('no provider key matches the JWS');
    const data = Buffer.from(`${encodedHeader}.${encodedPayload}`);
    const spec = ALGORITHMS[alg]!;
    const valid = candidates.some((jwk) => {
      const key = this.#import(jwk);
      if (!key) return false;
      if (spec.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return false;
      try {
        return verify(
          spec.hash,
          data,
          spec.pss
            ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
            : spec.ec
              ? { key, dsaEncoding: 'ieee-p1363' }
              : key,
          signature,
        );
      } catch {
        return false;
      }
    });
    if (!valid) throw invalid('JWS signature verification failed');
    return { header, payload: parsePart(encodedPayload, 'payload') };
  }

  async #candidates(alg: string, kid: string | undefined, fromProvider = false): Promise<Jwk[]> {
    const stale = this.#keys === undefined || Date.now() - this.#fetchedAt >= JWKS_MAX_AGE_MS;
    const keys = stale ? await this.#refetch() : this.#keys!;
    const found = select(keys, alg, kid);
    if (found.length > 0 || stale) return found;
    // Unknown key: the provider may have rotated its keys. Refetch once.
    if (!fromProvider && Date.now() - this.#lastMissRefetchAt < this.#options.missRefetchCooldownMs)
      return found;
    this.#lastMissRefetchAt = Date.now();
    return select(await this.#refetch(), alg, kid);
  }

  #refetch(): Promise<Jwk[]> {
    this.#inflight ??= this.#options
      .loadJwks()
      .then((document) => {
        const keys = (document as { keys?: unknown } | null)?.keys;
        if (!Array.isArray(keys)) throw invalid('provider JWKS is malformed');
        this.#keys = keys.filter((k): k is Jwk => typeof k === 'object' && k !== null && !Array.isArray(k));
        this.#fetchedAt = Date.now();
        return this.#keys;
      })
      .finally(() => {
        this.#inflight = undefined;
      });
    return this.#inflight;
  }

  #import(jwk: Jwk): KeyObject | undefined {
    let key = this.#imported.get(jwk);
    if (!key) {
      try {
        const { kid: _k, alg: _a, use: _u, key_ops: _o, ...material } = jwk;
        key = createPublicKey({ key: material, format: 'jwk' });
      } catch {
        return undefined;
      }
      if (key.type !== 'public') return undefined;
      this.#imported.set(jwk, key);
    }
    return key;
  }
}

function select(keys: Jwk[], alg: string, kid: string | undefined): Jwk[] {
  const spec = ALGORITHMS[alg]!;
  return keys.filter(
    (jwk) =>
      jwk.kty === spec.kty &&
      (kid === undefined || jwk.kid === kid) &&
      (jwk.alg === undefined || jwk.alg === alg) &&
      (jwk.use === undefined || jwk.use === 'sig') &&
      (jwk.key_ops === undefined || jwk.key_ops.includes('verify')) &&
      (spec.crv === undefined || jwk.crv === spec.crv) &&
      // A JWKS must not hand us private material; never use such an entry.
      jwk.d === undefined,
  );
}
