import type { Middleware } from 'koa';
import type { SessionAuthenticator } from '../../application/session-authenticator.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { readCookie } from './cookies.js';
import type { GatehouseState } from './state.js';

export interface SessionGuardOptions {
  cookieName: string;
  /**
   * Spec 5.4: a session whose credentials expired may only change the password or log out.
   * Only those routes pass `true`; every product route keeps the default.
   */
  allowExpiredCredentials?: boolean;
}

/**
 * The session check and the expired-credentials gate in one Koa middleware, for Gatehouse's own
 * routes and for product teams' routes alike. On success `ctx.state.gatehouse` holds the session
 * and the user; otherwise it throws NOT_AUTHENTICATED (401) or PASSWORD_EXPIRED (403).
 */
export function sessionGuard(
  authenticator: SessionAuthenticator,
  options: SessionGuardOptions,
): Middleware<GatehouseState> {
  return async (ctx, next) => {
    const token = readCookie(ctx.get('Cookie'), options.cookieName);
    const authenticated = await authenticator.authenticate(token);
    if (authenticated.credentials.isExpired && !options.allowExpiredCredentials) {
      throw new DomainError(
        'PASSWORD_EXPIRED',
        'The password has expired. Change it before doing anything else.',
      );
    }
    ctx.state.gatehouse = authenticated;
    await next();
  };
}
