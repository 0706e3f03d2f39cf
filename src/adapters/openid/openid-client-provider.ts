import { AsyncLocalStorage } from 'node:async_hooks';
import { createPrivateKey, type JsonWebKey, webcrypto } from 'node:crypto';
import {
  allowInsecureRequests,
  authorizationCodeGrant,
  type ClientAuth,
  ClientSecretBasic,
  ClientSecretPost,
  type Configuration,
  type CustomFetch,
  clockTolerance,
  customFetch,
  discovery,
  PrivateKeyJwt,
  tokenRevocation,
} from 'openid-client';
import type {
  CodeExchangeRequest,
  LogoutTokenClaims,
  OpenIdProvider,
  ProviderLogoutRequest,
  ValidatedTokenSet,
} from '../../domain/sso/openid-provider.port.js';
import { ID_TOKEN_ALGORITHMS, type IdTokenAlgorithm } from '../../domain/sso/provider-registration.js';
import { boundedResponse } from './bounded-response.js';
import { foreignEndpoint, foreignEndpointMessage } from './endpoint-origins.js';
import { JwtSignatureVerifier, type KeyUseObserver } from './jwt-signature-verifier.js';
import { failedInTransit, ssoError, translate } from './openid-errors.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface OpenIdClientProviderOptions {
  /** Issuer identifier; the discovered metadata and every token's `iss` must equal it exactly. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  clientAuth: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /**
   * The one algorithm this provider signs ID tokens and back-channel logout tokens with. Set by
   * configuration, never taken from what the provider advertises: a token under any other
   * algorithm is refused, even when the provider publishes a key for it.
   */
  idTokenAlg: IdTokenAlgorithm;
  /** Private key (JWK, with `kid` when the provider knows several) for private_key_jwt. */
  privateKeyJwk?: JsonWebKey;
  /** Bound on every single HTTP request to the provider (discovery, token, JWKS, revocation). */
  timeoutMs: number;
  /** Allows an http:// issuer and endpoints (development and tests only). */
  allowInsecureHttp: boolean;
  /** Origins besides the issuer's that discovered endpoints may use (OIDC_ENDPOINT_ORIGINS). */
  endpointOrigins?: readonly string[];
  /** Clock skew tolerated on exp / iat / nbf, seconds. Default 30. */
  clockToleranceS?: number;
  /** Largest age of a back-channel logout token (`iat`), seconds. Default 120. */
  logoutTokenMaxAgeS?: number;
  /** Minimum gap between JWKS refetches caused by an unknown `kid`, ms. Default 10 000. */
  jwksMissRefetchCooldownMs?: number;
  /** Fetch implementation (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Told the endpoint, outcome and duration (to the response headers) of each request (metrics). */
  observer?: (call: OpenIdCallObservation) => void;
  /** Told each signature check and each JWKS entry refused (metrics, and the tests that bound them). */
  keyObserver?: KeyUseObserver;
}

export interface OpenIdCallObservation {
  endpoint: 'discovery' | 'token' | 'jwks' | 'revocation' | 'userinfo' | 'other';
  outcome: 'ok' | 'client_error' | 'server_error' | 'timeout' | 'network_error';
  durationS: number;
}

type Claims = Record<string, unknown>;

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
 * OpenidProvider over openid-client 6 (discovery, code grant, revocation) plus jose's JWS
 * verification against the provider's bounded JWKS (openid-client does not verify ID token
 * signatures from the token endpoint by default, and has no logout token validator).
 */
/** Longest `sub` or `sid` kept: both are stored with each SSO session. */
const IDENTIFIER_MAX_LENGTH = 255;

function isBoundedIdentifier(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= IDENTIFIER_MAX_LENGTH;
}

/** An ID token's `typ`, when sent, says JWT: `logout+jwt`, `at+jwt` and the like are other tokens. */
function isIdTokenType(typ: unknown): boolean {
  return typeof typ === 'string' && ['jwt', 'application/jwt'].includes(typ.toLowerCase());
}

export class OpenIdClientProvider implements OpenIdProvider {
  readonly #options: OpenIdClientProviderOptions;
  readonly #toleranceS: number;
  readonly #fetch: typeof fetch;
  readonly #redirectUri = new AsyncLocalStorage<string>();
  readonly #verifier: JwtSignatureVerifier;
  #config: Configuration | undefined;
  #discovering: Promise<Configuration> | undefined;

  constructor(options: OpenIdClientProviderOptions) {
    let issuerUrl: URL;
    try {
      issuerUrl = new URL(options.issuer);
    } catch {
      throw new Error('OpenID issuer is not a URL');
    }
    if (issuerUrl.protocol !== 'https:' && !(issuerUrl.protocol === 'http:' && options.allowInsecureHttp)) {
      throw new Error('OpenID issuer must use https (or allowInsecureHttp)');
    }
    if (!options.clientId) throw new Error('OpenID client id is empty');
    if (options.clientAuth === 'private_key_jwt') {
      if (!options.privateKeyJwk) throw new Error('private_key_jwt needs privateKeyJwk');
      importAlgorithm(options.privateKeyJwk);
      const key = createPrivateKey({ key: options.privateKeyJwk, format: 'jwk' });
      if (key.type !== 'private') throw new Error('privateKeyJwk is not a private key');
    } else if (!options.clientSecret) {
      throw new Error(`${options.clientAuth} needs clientSecret`);
    }
    if (!(options.timeoutMs > 0)) throw new Error('timeoutMs must be positive');
    if (!ID_TOKEN_ALGORITHMS.includes(options.idTokenAlg)) {
      throw new Error(`idTokenAlg must be one of ${ID_TOKEN_ALGORITHMS.join(', ')}`);
    }

    this.#options = options;
    this.#toleranceS = options.clockToleranceS ?? 30;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#verifier = new JwtSignatureVerifier({
      algorithm: options.idTokenAlg,
      loadJwks: () => this.#loadJwks(),
      missRefetchCooldownMs: options.jwksMissRefetchCooldownMs ?? 10_000,
      ...(options.keyObserver ? { observer: options.keyObserver } : {}),
    });
  }

  isDiscovered(): boolean {
    return this.#config !== undefined;
  }

  async exchangeCode(request: CodeExchangeRequest): Promise<ValidatedTokenSet> {
    if (!request.authorizationCode || !request.nonce || !request.redirectUri) {
      throw ssoError('SSO_INVALID', 'code, nonce and redirect_uri are required');
    }
    let callback: URL;
    try {
      callback = new URL(request.redirectUri);
    } catch (error) {
      throw ssoError('SSO_INVALID', 'redirect_uri is not a URL', error);
    }
    try {
      const config = await this.#configuration();
      const metadata = config.serverMetadata();
      callback.search = '';
      callback.hash = '';
      callback.searchParams.set('code', request.authorizationCode);
      // RFC 9207: openid-client requires `iss` when the provider advertises it.
      if (metadata.authorization_response_iss_parameter_supported) {
        callback.searchParams.set('iss', metadata.issuer);
      }
      const tokens = await this.#redirectUri.run(request.redirectUri, () =>
        authorizationCodeGrant(config, callback, {
          expectedNonce: request.nonce,
          idTokenExpected: true,
          ...(request.codeVerifier ? { pkceCodeVerifier: request.codeVerifier } : {}),
        }),
      );
      // openid-client checked iss, aud (and azp), exp, iat presence and nonce; the signature and the
      // iat bound are ours.
      const idToken = tokens.id_token;
      const validated = tokens.claims();
      if (!idToken || !validated) throw ssoError('SSO_INVALID', 'no ID token');
      // Straight from the token endpoint: an unknown kid always refetches the JWKS once.
      const { header } = await this.#verifier.verify(idToken, { fromProvider: true });
      // Token confusion (RFC 8725 3.11): a logout token or an access token is not an ID token.
      if (header.typ !== undefined && !isIdTokenType(header.typ)) throw ssoError('SSO_INVALID', 'header typ');
      const claims: Claims = { ...validated };
      this.#checkIssuedAt(claims.iat);
      if (!isBoundedIdentifier(claims.sub)) throw ssoError('SSO_INVALID', 'claim sub');
      if (claims.sid !== undefined && !isBoundedIdentifier(claims.sid))
        throw ssoError('SSO_INVALID', 'claim sid');
      // OpenID Connect Core 3.1.3.7 step 5: an azp, when present, names this client, whatever aud holds.
      if (claims.azp !== undefined && claims.azp !== this.#options.clientId) {
        throw ssoError('SSO_INVALID', 'claim azp');
      }
      return {
        idToken,
        claims: Object.freeze(claims),
        ...(tokens.access_token ? { accessToken: tokens.access_token } : {}),
        ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
        issuer: metadata.issuer,
        subject: claims.sub,
        ...(typeof claims.sid === 'string' && claims.sid ? { sid: claims.sid } : {}),
      };
    } catch (error) {
      throw translate(error);
    }
  }

  async logout(request: ProviderLogoutRequest): Promise<{ revoked: number }> {
    const tokens: Array<[string, 'refresh_token' | 'access_token']> = [];
    // The refresh token first: revoking it ends the grant, and with it the access tokens.
    if (request.refreshToken) tokens.push([request.refreshToken, 'refresh_token']);
    if (request.accessToken) tokens.push([request.accessToken, 'access_token']);
    if (tokens.length === 0) return { revoked: 0 };
    let config: Configuration;
    try {
      config = await this.#configuration();
    } catch (error) {
      throw translate(error);
    }
    if (!config.serverMetadata().revocation_endpoint) return { revoked: 0 };
    let revoked = 0;
    let failure: unknown;
    for (const [token, hint] of tokens) {
      try {
        await tokenRevocation(config, token, { token_type_hint: hint });
        revoked += 1;
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw translate(failure);
    return { revoked };
  }

  async validateLogoutToken(logoutToken: string): Promise<LogoutTokenClaims> {
    try {
      if (typeof logoutToken !== 'string' || logoutToken.length === 0 || logoutToken.length > 16_384) {
        throw ssoError('SSO_INVALID', 'logout token missing or too large');
      }
      const config = await this.#configuration();
      const issuer = config.serverMetadata().issuer;
      const { header, payload } = await this.#verifier.verify(logoutToken);
      // Back-channel logout 1.0 section 2.4 / RFC 8725 section 3.11: explicit typing when sent.
      if (header.typ !== undefined) {
        const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : '';
        if (typ !== 'logout+jwt' && typ !== 'application/logout+jwt')
          throw ssoError('SSO_INVALID', 'header typ');
      }
      if (payload.iss !== issuer) throw ssoError('SSO_INVALID', 'claim iss');
      const aud = payload.aud;
      const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
      if (!audiences.includes(this.#options.clientId)) throw ssoError('SSO_INVALID', 'claim aud');
      const now = Math.floor(Date.now() / 1000);
      const iat = payload.iat;
      if (typeof iat !== 'number' || !Number.isFinite(iat)) throw ssoError('SSO_INVALID', 'claim iat');
      if (iat > now + this.#toleranceS) throw ssoError('SSO_INVALID', 'claim iat in the future');
      const maxAgeS = this.#options.logoutTokenMaxAgeS ?? 120;
      if (now - iat > maxAgeS) throw ssoError('SSO_INVALID', 'claim iat too old');
      // Back-Channel Logout 1.0 section 2.4: exp and jti are required; a token is accepted until
      // exp, or sooner maxAgeS past its iat.
      const exp = payload.exp;
      if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now - this.#toleranceS) {
        throw ssoError('SSO_INVALID', 'claim exp');
      }
      if (!isBoundedIdentifier(payload.jti)) throw ssoError('SSO_INVALID', 'claim jti');
      const acceptedUntilS = Math.min(exp + this.#toleranceS, iat + maxAgeS);
      if (payload.nbf !== undefined) {
        if (typeof payload.nbf !== 'number' || payload.nbf > now + this.#toleranceS) {
          throw ssoError('SSO_INVALID', 'claim nbf');
        }
      }
      const events = payload.events;
      const event =
        typeof events === 'object' && events !== null && !Array.isArray(events)
          ? (events as Claims)[BACKCHANNEL_LOGOUT_EVENT]
          : undefined;
      if (typeof event !== 'object' || event === null || Array.isArray(event)) {
        throw ssoError('SSO_INVALID', 'claim events');
      }
      if (payload.nonce !== undefined) throw ssoError('SSO_INVALID', 'claim nonce must be absent');
      const { sub, sid } = payload;
      if (sub !== undefined && !isBoundedIdentifier(sub)) throw ssoError('SSO_INVALID', 'claim sub');
      if (sid !== undefined && !isBoundedIdentifier(sid)) throw ssoError('SSO_INVALID', 'claim sid');
      if (sub === undefined && sid === undefined)
        throw ssoError('SSO_INVALID', 'claims sub and sid both missing');
      return {
        issuer,
        ...(typeof sub === 'string' ? { subject: sub } : {}),
        ...(typeof sid === 'string' ? { sid } : {}),
        tokenId: payload.jti,
        acceptedUntil: new Date(acceptedUntilS * 1000),
      };
    } catch (error) {
      throw translate(error);
    }
  }

  #checkIssuedAt(iat: unknown): void {
    if (typeof iat !== 'number' || !Number.isFinite(iat)) throw ssoError('SSO_INVALID', 'claim iat');
    if (iat > Math.floor(Date.now() / 1000) + this.#toleranceS) {
      throw ssoError('SSO_INVALID', 'claim iat in the future');
    }
  }

  /** Discovery on first use, cached once it succeeded; a failure is retried on the next call. */
  #configuration(): Promise<Configuration> {
    if (this.#config) return Promise.resolve(this.#config);
    this.#discovering ??= this.#discover()
      .then((config) => {
        this.#config = config;
        return config;
      })
      .finally(() => {
        this.#discovering = undefined;
      });
    return this.#discovering;
  }

  async #discover(): Promise<Configuration> {
    const o = this.#options;
    const config = await discovery(
      new URL(o.issuer),
      o.clientId,
      // openid-client checks the ID token's alg against this instead of the provider's metadata.
      { id_token_signed_response_alg: o.idTokenAlg, [clockTolerance]: this.#toleranceS },
      await this.#clientAuth(),
      {
        [customFetch]: this.#timedFetch,
        timeout: o.timeoutMs / 1000,
        execute: o.allowInsecureHttp ? [allowInsecureRequests] : [],
      },
    );
    // openid-client compares the discovered issuer after URL normalisation; ours is exact.
    if (config.serverMetadata().issuer !== o.issuer) {
      throw ssoError('SSO_INVALID', 'discovered issuer differs from the configured issuer');
    }
    const foreign = foreignEndpoint(o.issuer, config.serverMetadata(), o.endpointOrigins ?? []);
    if (foreign) throw ssoError('SSO_INVALID', foreignEndpointMessage(foreign));
    config.timeout = o.timeoutMs / 1000;
    return config;
  }

  async #clientAuth(): Promise<ClientAuth> {
    const o = this.#options;
    switch (o.clientAuth) {
      case 'client_secret_basic':
        return ClientSecretBasic(o.clientSecret);
      case 'client_secret_post':
        return ClientSecretPost(o.clientSecret);
      case 'private_key_jwt': {
        const jwk = o.privateKeyJwk!;
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

  /** Every request to the provider ends after timeoutMs at the latest. */
  readonly #timedFetch: CustomFetch = (url, options) => {
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const body = options.body;
    // The exact redirect_uri of the authorization request (openid-client would send the callback
    // URL without its query, normalised).
    const redirectUri = this.#redirectUri.getStore();
    if (redirectUri && body instanceof URLSearchParams && body.get('grant_type') === 'authorization_code') {
      body.set('redirect_uri', redirectUri);
    }
    const started = performance.now();
    // Read whole here, under the same time-out, and refused past 256 KB.
    const request = this.#fetch(url, { ...options, signal } as RequestInit).then((response) =>
      boundedResponse(response),
    );
    return this.#options.observer ? this.#observed(url, started, request) : request;
  };

  async #observed(url: string, started: number, request: Promise<Response>): Promise<Response> {
    const report = (outcome: OpenIdCallObservation['outcome']) =>
      this.#options.observer?.({
        endpoint: this.#endpointOf(url),
        outcome,
        durationS: (performance.now() - started) / 1000,
      });
    try {
      const response = await request;
      report(response.status >= 500 ? 'server_error' : response.status >= 400 ? 'client_error' : 'ok');
      return response;
    } catch (error) {
      report((error as { name?: unknown } | null)?.name === 'TimeoutError' ? 'timeout' : 'network_error');
      throw error;
    }
  }

  #endpointOf(url: string): OpenIdCallObservation['endpoint'] {
    const bare = url.split('?', 1)[0]!;
    if (bare.includes('/.well-known/')) return 'discovery';
    const metadata = this.#config?.serverMetadata();
    if (!metadata) return 'other';
    const is = (endpoint: string | undefined) =>
      endpoint !== undefined && (url === endpoint || bare === endpoint);
    if (is(metadata.token_endpoint)) return 'token';
    if (is(metadata.jwks_uri)) return 'jwks';
    if (is(metadata.revocation_endpoint)) return 'revocation';
    if (is(metadata.userinfo_endpoint)) return 'userinfo';
    return 'other';
  }

  async #loadJwks(): Promise<unknown> {
    const config = await this.#configuration();
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw ssoError('SSO_INVALID', 'the provider publishes no jwks_uri');
    const url = new URL(jwksUri);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#options.allowInsecureHttp)) {
      throw ssoError('SSO_UNREACHABLE', 'jwks_uri must use https');
    }
    const response = await this.#timedFetch(url.href, {
      method: 'GET',
      headers: { accept: 'application/json, application/jwk-set+json' },
      body: undefined,
      redirect: 'manual',
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw ssoError(
        response.status >= 400 && response.status < 500 ? 'SSO_REFUSED' : 'SSO_UNREACHABLE',
        `JWKS HTTP ${response.status}`,
      );
    }
    // As for discovery: an answer that is not JSON by its type is an error page of something in
    // between (a proxy, a load balancer), so the provider itself was not reached.
    if (!/json/i.test(response.headers.get('content-type') ?? '')) {
      await response.body?.cancel();
      throw ssoError('SSO_UNREACHABLE', 'JWKS is not JSON by its content type');
    }
    try {
      return await response.json();
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
        throw error;
      // A body cut by the network is not the provider's answer: unreachable, not invalid.
      if (failedInTransit(error)) throw ssoError('SSO_UNREACHABLE', 'JWKS body cut short', error);
      throw ssoError('SSO_INVALID', 'provider JWKS is not JSON', error);
    }
  }
}
