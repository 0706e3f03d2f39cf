import {
  type CryptoKey,
  compactVerify,
  createLocalJWKSet,
  errors,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import { admitKeys, type KeyRefusal } from './jwks-admission.js';
import { ssoError } from './openid-errors.js';

/**
 * Asymmetric JWS algorithms a verifier can expect; `none` and the HMAC family never. Each verifier
 * accepts exactly one of them, the one its provider is configured with.
 */
const ALGORITHMS = new Set([
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
]);

/** JWKS older than this are fetched again on next use. */
const JWKS_MAX_AGE_MS = 10 * 60_000;

/**
 * Keys tried for one token at most. A token naming a `kid` is tried with the keys of that kid, one
 * without with the keys of the expected algorithm's type; either way no more than this many, so a
 * key set whose keys all match costs a forged token a few signature checks, never the whole set.
 */
export const MAX_KEYS_PER_TOKEN = 3;

export interface VerifiedJws {
  header: Readonly<Record<string, unknown>>;
  payload: Readonly<Record<string, unknown>>;
}

/** Told what the verifier spent (metrics, and the tests that bound it). */
export interface KeyUseObserver {
  /** One signature check against one key. */
  signatureChecked?: () => void;
  /** A JWKS entry left out of the key set when it was fetched, and why. */
  keyRefused?: (reason: KeyRefusal) => void;
}

export interface JwtSignatureVerifierOptions {
  /**
   * The one algorithm accepted (RFC 8725 3.1): a JWS under any other is refused, even when the
   * provider publishes a key for it (algorithm confusion across its own keys).
   */
  algorithm: string;
  /** Fetches the provider's JWKS document (time-outs, size bound and HTTPS policy are the caller's). */
  loadJwks: () => Promise<unknown>;
  /**
   * After a JWKS refetch caused by an unknown `kid`, further unknown-`kid` refetches wait this
   * long (a flood of forged tokens must not turn into a flood of JWKS requests).
   */
  missRefetchCooldownMs: number;
  observer?: KeyUseObserver;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

function invalid(detail: string): Error {
  return ssoError('SSO_INVALID', detail);
}

function parseJson(bytes: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalid(`malformed JWT ${what}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(`malformed JWT ${what}`);
  return value as Record<string, unknown>;
}

/**
 * Verifies compact JWS signatures with panva's `jose` against the provider's JWKS, which is read
 * by the provider adapter's bounded, time-limited fetch and admitted key by key (jwks-admission).
 * The set is cached; a token whose key is not in it refetches it once, within a cool-down.
 * Claims are not this class's: the ID token's are openid-client's, the logout token's the adapter's.
 */
export class JwtSignatureVerifier {
  readonly #options: JwtSignatureVerifierOptions;
  #keySet: KeySet | undefined;
  #fetchedAt = 0;
  #lastMissRefetchAt = Number.NEGATIVE_INFINITY;
  #inflight: Promise<KeySet> | undefined;
  #lastFailure: { at: number; error: unknown } | undefined;

  constructor(options: JwtSignatureVerifierOptions) {
    if (!ALGORITHMS.has(options.algorithm)) {
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
    const [encodedHeader = '', , encodedSignature = ''] = parts;
    const header = parseJson(Buffer.from(encodedHeader, 'base64url'), 'header');
    if (header.alg !== this.#options.algorithm) throw invalid('JWS algorithm not allowed');
    if (header.crit !== undefined) throw invalid('unsupported JWS crit header');
    // RFC 7797: b64 is only meaningful listed in crit, which is refused above; present alone it is
    // a malformed JWS, never one to read as if it were absent.
    if (header.b64 !== undefined) throw invalid('unsupported JWS b64 header');
    if (header.kid !== undefined && typeof header.kid !== 'string') throw invalid('malformed JWS kid');
    if (encodedSignature.length === 0) throw invalid('JWS signature missing');

    const keys = await this.#candidates(header as JWSHeaderParameters, options.fromProvider);
    if (keys.length === 0) throw invalid('no provider key matches the JWS');
    let payload: Uint8Array | undefined;
    for (const key of keys) {
      this.#options.observer?.signatureChecked?.();
      try {
        ({ payload } = await compactVerify(jwt, key, { algorithms: [this.#options.algorithm] }));
        break;
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw invalid('malformed JWS');
      }
    }
    if (!payload) throw invalid('JWS signature verification failed');
    return { header, payload: parseJson(payload, 'payload') };
  }

  async #candidates(header: JWSHeaderParameters, fromProvider = false): Promise<CryptoKey[]> {
    const stale = this.#keySet === undefined || Date.now() - this.#fetchedAt >= JWKS_MAX_AGE_MS;
    // A JWKS that just failed (unreachable, malformed, too many keys) is not fetched again for a
    // token anyone may post until the cool-down has passed: the failure is answered again instead.
    const failure = this.#lastFailure;
    if (stale && !fromProvider && failure && Date.now() - failure.at < this.#options.missRefetchCooldownMs)
      throw failure.error;
    const keySet = stale ? await this.#refetch() : this.#keySet!;
    const found = await select(keySet, header);
    if (found.length > 0 || stale) return found;
    // Unknown key: the provider may have rotated its keys. Refetch once.
    if (!fromProvider && Date.now() - this.#lastMissRefetchAt < this.#options.missRefetchCooldownMs)
      return found;
    this.#lastMissRefetchAt = Date.now();
    return select(await this.#refetch(), header);
  }

  #refetch(): Promise<KeySet> {
    this.#inflight ??= this.#options
      .loadJwks()
      .then((document) => {
        const { keys, refused } = admitKeys(document);
        for (const reason of refused) this.#options.observer?.keyRefused?.(reason);
        this.#keySet = createLocalJWKSet({ keys } satisfies JSONWebKeySet);
        this.#fetchedAt = Date.now();
        this.#lastFailure = undefined;
        return this.#keySet;
      })
      .catch((error: unknown) => {
        this.#lastFailure = { at: Date.now(), error };
        throw error;
      })
      .finally(() => {
        this.#inflight = undefined;
      });
    return this.#inflight;
  }
}

/**
 * The keys of the set that may have signed a JWS with this header (jose matches kid, kty, crv,
 * alg, use and key_ops), MAX_KEYS_PER_TOKEN at most, imported only as far as they are taken.
 */
async function select(keySet: KeySet, header: JWSHeaderParameters): Promise<CryptoKey[]> {
  try {
    return [await keySet(header)];
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) return [];
    const keys: CryptoKey[] = [];
    for await (const key of error as unknown as AsyncIterable<CryptoKey>) {
      keys.push(key);
      if (keys.length === MAX_KEYS_PER_TOKEN) break;
    }
    return keys;
  }
}
