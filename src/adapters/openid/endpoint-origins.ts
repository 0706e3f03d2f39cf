/**
 * The discovered endpoints Gatehouse itself calls or hands on: each must be at the issuer's own
 * origin, or at one the deployment allows (OIDC_ENDPOINT_ORIGINS). A discovery document is the
 * provider's word about where to send the client's secret and from where to take the keys that
 * vouch for users; one that names another origin is refused, so a tampered or hijacked document
 * cannot send them elsewhere unless the operator said so (a provider such as Google serves its
 * keys and token endpoint from other hosts than its issuer's).
 */
export const CHECKED_ENDPOINTS = [
  'token_endpoint',
  'jwks_uri',
  'userinfo_endpoint',
  'revocation_endpoint',
  'end_session_endpoint',
] as const;

export interface ForeignEndpoint {
  name: (typeof CHECKED_ENDPOINTS)[number];
  url: string;
}

/** `value`'s origin (`scheme://host[:port]`), or null when it is not an absolute URL. */
function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * The first endpoint of `metadata` that is neither at the issuer's origin nor at an allowed one
 * (`allowedOrigins`, as `https://host[:port]`), or null when every one present is.
 */
export function foreignEndpoint(
  issuer: string,
  metadata: Readonly<Record<string, unknown>>,
  allowedOrigins: readonly string[],
): ForeignEndpoint | null {
  const allowed = new Set([originOf(issuer), ...allowedOrigins]);
  for (const name of CHECKED_ENDPOINTS) {
    const url = metadata[name];
    if (url === undefined || url === null) continue;
    if (typeof url !== 'string') return { name, url: String(url) };
    const origin = originOf(url);
    if (origin === null || origin === 'null' || !allowed.has(origin)) return { name, url };
  }
  return null;
}

/** The refusal's wording, one for the login path and `gatehouse provider test`. */
export function foreignEndpointMessage({ name, url }: ForeignEndpoint): string {
  return `discovery names ${name} ${url}, not at the issuer's origin (allow its origin with OIDC_ENDPOINT_ORIGINS)`;
}
