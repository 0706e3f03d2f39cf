/**
 * The `iss` and `aud` a back-channel logout token claims, read before it is verified, only to
 * choose whose keys verify it: several customers' providers share one endpoint, and a token names
 * its provider by these two (two providers may share an issuer, never a client). Nothing read
 * here is trusted: the chosen provider's adapter verifies signature, `iss` and `aud` again.
 */
export function logoutTokenOrigin(token: string): { issuer: string; audiences: string[] } | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null) return null;
  const { iss, aud } = payload as { iss?: unknown; aud?: unknown };
  if (typeof iss !== 'string') return null;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return { issuer: iss, audiences: audiences.filter((value): value is string => typeof value === 'string') };
}
