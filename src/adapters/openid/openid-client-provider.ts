import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonWebKey } from 'node:crypto';
import {
  allowInsecureRequests,
  authorizationCodeGrant,
  type Configuration,
  type CustomFetch,
  clockTolerance,
  customFetch,
  discovery,
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
import { checkClientCredentials, clientAuthentication } from './client-authentication.js';
import { foreignEndpoint, foreignEndpointMessage } from './endpoint-origins.js';
import { JwtSignatureVerifier, type KeyUseObserver } from './jwt-signature-verifier.js';
import { failedInTransit, ssoError, translate } from './openid-errors.js';
import { type OpenIdCallObservation, providerFetch } from './provider-fetch.js';
import { type ClaimTimes, checkIdTokenClaims, logoutTokenClaims } from './token-claims.js';

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

/**
 * OpenidProvider over openid-client 6 (discovery, code grant, revocation) plus jose's JWS
 * verification against the provider's bounded JWKS (openid-client does not verify ID token
 * signatures from the token endpoint by default, and has no logout token validator).
 */
export class OpenIdClientProvider implements OpenIdProvider {
  readonly #options: OpenIdClientProviderOptions;
  readonly #toleranceS: number;
  readonly #fetch: CustomFetch;
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
    checkClientCredentials(options);
    if (!(options.timeoutMs > 0)) throw new Error('timeoutMs must be positive');
    if (!ID_TOKEN_ALGORITHMS.includes(options.idTokenAlg)) {
      throw new Error(`idTokenAlg must be one of ${ID_TOKEN_ALGORITHMS.join(', ')}`);
    }

    this.#options = options;
    this.#toleranceS = options.clockToleranceS ?? 30;
    this.#fetch = providerFetch(options, {
      redirectUri: () => this.#redirectUri.getStore(),
      metadata: () => this.#config?.serverMetadata(),
    });
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
      // rest are ours.
      const idToken = tokens.id_token;
      const validated = tokens.claims();
      if (!idToken || !validated) throw ssoError('SSO_INVALID', 'no ID token');
      // Straight from the token endpoint: an unknown kid always refetches the JWKS once.
      const { header } = await this.#verifier.verify(idToken, { fromProvider: true });
      const claims: Record<string, unknown> = { ...validated };
      checkIdTokenClaims(header, claims, { ...this.#claimTimes(), clientId: this.#options.clientId });
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
      return logoutTokenClaims(header, payload, {
        ...this.#claimTimes(),
        issuer,
        clientId: this.#options.clientId,
        maxAgeS: this.#options.logoutTokenMaxAgeS ?? 120,
      });
    } catch (error) {
      throw translate(error);
    }
  }

  #claimTimes(): ClaimTimes {
    return { toleranceS: this.#toleranceS, nowS: Math.floor(Date.now() / 1000) };
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
      await clientAuthentication(o),
      {
        [customFetch]: this.#fetch,
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

  async #loadJwks(): Promise<unknown> {
    const config = await this.#configuration();
    const jwksUri = config.serverMetadata().jwks_uri;
    if (!jwksUri) throw ssoError('SSO_INVALID', 'the provider publishes no jwks_uri');
    const url = new URL(jwksUri);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#options.allowInsecureHttp)) {
      throw ssoError('SSO_UNREACHABLE', 'jwks_uri must use https');
    }
    const response = await this.#fetch(url.href, {
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
