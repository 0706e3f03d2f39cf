import type { AuthenticatedSession, SessionAuthenticator } from '../../application/session-authenticator.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { readCookies } from './cookies.js';
import { type OriginFacts, originRefusal } from './origin-check.js';

export interface SessionGuardOptions {
  cookieName: string;
  /**
   * Spec 5.4: a session whose credentials expired may only change the password or log out.
   * Only those routes pass `true`; every product route keeps the default.
   */
  allowExpiredCredentials?: boolean;
}

/**
 * The session check and the expired-credentials gate, for Gatehouse's own routes and for the
 * transport guards alike: the live session named by the Cookie header, or NOT_AUTHENTICATED
 * (401) / PASSWORD_EXPIRED (403).
 */
export async function checkSession(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  cookieHeader: string,
  options: SessionGuardOptions,
): Promise<AuthenticatedSession> {
  const authenticated = await authenticator.authenticate(readCookies(cookieHeader, options.cookieName));
  if (authenticated.credentials.isExpired && !options.allowExpiredCredentials) {
    throw new DomainError(
      'PASSWORD_EXPIRED',
      'The password has expired. Change it before doing anything else.',
    );
  }
  return authenticated;
}

export interface ProductGuardOptions extends SessionGuardOptions {
  /**
   * Origins besides the product app's own whose state-changing requests are accepted (the
   * portal's, when it calls this app's API from a browser). Default: none.
   */
  trustedOrigins?: readonly string[];
}

/**
 * What the guards for product teams' own routes (Koa, Express, Fastify) check. A
 * cookie-authenticated route is a CSRF target, and a product app has no Gatehouse Origin check in
 * front of it: so for unsafe methods a foreign `Origin` or a cross-site `Sec-Fetch-Site` is refused
 * first (403 ORIGIN_REJECTED, issue 11, finding 11), then the session is checked.
 */
export function productGuard(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  options: ProductGuardOptions,
): (request: OriginFacts) => Promise<AuthenticatedSession> {
  const trusted = new Set(options.trustedOrigins ?? []);
  return async (request) => {
    const refusal = originRefusal(request, trusted);
    if (refusal) throw refusal;
    return checkSession(authenticator, request.header('cookie'), options);
  };
}
