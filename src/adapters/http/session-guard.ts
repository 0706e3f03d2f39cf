import type { AuthenticatedSession, SessionAuthenticator } from '../../application/session-authenticator.js';
import type { GatehouseUser } from '../../client/gatehouse-user.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { User } from '../../domain/user/user.js';
import { readCookies } from './cookies.js';
import { type OriginFacts, originRefusal } from './origin-check.js';

export interface SessionCheckSettings {
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
  settings: SessionCheckSettings,
): Promise<AuthenticatedSession> {
  const authenticated = await authenticator.authenticate(readCookies(cookieHeader, settings.cookieName));
  if (authenticated.credentials.isExpired && !settings.allowExpiredCredentials) {
    throw new DomainError(
      'PASSWORD_EXPIRED',
      'The password has expired. Change it before doing anything else.',
    );
  }
  return authenticated;
}

export interface GuardSettings extends SessionCheckSettings {
  /**
   * Origins besides the product app's own whose state-changing requests are accepted (the
   * portal's, when it calls this app's API from a browser). Default: none.
   */
  trustedOrigins?: readonly string[];
}

/**
 * The user object a guard hands to the product's handler (contract 9): who the session belongs
 * to and nothing else, so that no stored field (the password hash above all) can be sent on.
 */
export function guardUser(user: User): GatehouseUser {
  return {
    userId: user.userId,
    username: user.username,
    userLevel: user.userLevel,
    ...(user.tenantId ? { tenantId: user.tenantId } : {}),
    ...(user.groupId ? { groupId: user.groupId } : {}),
  };
}

/**
 * What the guards for product teams' own routes (Koa, Express, Fastify) check. A
 * cookie-authenticated route is a CSRF target, and a product app has no Gatehouse Origin check in
 * front of it: so for unsafe methods a foreign `Origin` or a cross-site `Sec-Fetch-Site` is refused
 * first (403 ORIGIN_REJECTED), then the session is checked. The answer is the session's user.
 */
export function productGuard(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  settings: GuardSettings,
): (request: OriginFacts) => Promise<GatehouseUser> {
  const trusted = new Set(settings.trustedOrigins ?? []);
  return async (request) => {
    const refusal = originRefusal(request, trusted);
    if (refusal) throw refusal;
    return guardUser((await checkSession(authenticator, request.header('cookie'), settings)).user);
  };
}
