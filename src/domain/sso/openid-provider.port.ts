/**
 * The customer's OpenID provider, as the domain needs it. The adapter (src/adapters/openid)
 * translates every third-party failure into a DomainError with one of the codes:
 *   SSO_UNREACHABLE  network error, time-out, 5xx
 *   SSO_REFUSED      OAuth / HTTP 4xx error (e.g. invalid_grant for a replayed code)
 *   SSO_INVALID      no ID token, bad signature / iss / aud / exp / iat, nonce mismatch
 */
export interface CodeExchangeRequest {
  authorizationCode: string;
  redirectUri: string;
  nonce: string;
  codeVerifier?: string;
  /** Optional `state` the portal used; the service does not track it, the portal does. */
}

/** A validated token set: the ID token's signature and claims have been checked. */
export interface ValidatedTokenSet {
  idToken: string;
  /** Claims of the validated ID token. */
  claims: Readonly<Record<string, unknown>>;
  accessToken?: string;
  refreshToken?: string;
  /** Claims from the userinfo endpoint when the adapter fetched them; interpreters may use them. */
  userinfo?: Readonly<Record<string, unknown>>;
  /** Issuer and subject identify the user at the provider (ASVS 10.5.2). */
  issuer: string;
  subject: string;
  /** The provider's session id (`sid` claim) when it sent one, for back-channel logout. */
  sid?: string;
}

/** What a logout token (OpenID Connect Back-Channel Logout 1.0) names. */
export interface LogoutTokenClaims {
  issuer: string;
  subject?: string;
  sid?: string;
  /** The token's `jti`: a token is honoured once. */
  tokenId: string;
  /** When the token stops being accepted (its `exp`, or sooner its maximum age past `iat`). */
  acceptedUntil: Date;
}

export interface ProviderLogoutRequest {
  idToken?: string;
  accessToken?: string;
  refreshToken?: string;
}

export interface OpenIdProvider {
  /** Exchanges the code at the token endpoint and validates the ID token. */
  exchangeCode(request: CodeExchangeRequest): Promise<ValidatedTokenSet>;
  /**
   * Ends the user's session at the provider: RFC 7009 revocation of the refresh and access
   * tokens when the provider advertises a revocation endpoint. Returns what was done.
   */
  logout(request: ProviderLogoutRequest): Promise<{ revoked: number }>;
  /** Validates a back-channel logout token (signature, iss, aud, events, no nonce, fresh iat). */
  validateLogoutToken(logoutToken: string): Promise<LogoutTokenClaims>;
  /** True once discovery succeeded at least once; used by /readyz reporting (not gating). */
  isDiscovered(): boolean;
}
