import { randomUUID } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import type { AuthenticatedSession, SessionAuthenticator } from '../../application/session-authenticator.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import { readCookies } from './cookies.js';
import { problemBody, STATUS_BY_CODE } from './problem.js';
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
    let authenticated: AuthenticatedSession;
    try {
      authenticated = await authenticator.authenticate(readCookies(ctx.get('Cookie'), options.cookieName));
      if (authenticated.credentials.isExpired && !options.allowExpiredCredentials) {
        throw new DomainError(
          'PASSWORD_EXPIRED',
          'The password has expired. Change it before doing anything else.',
        );
      }
    } catch (error) {
      if (answeredAsProblem(ctx, error)) return;
      throw error;
    }
    ctx.state.gatehouse = authenticated;
    await next();
  };
}

/**
 * In Gatehouse's own app the error handler (which set the request id) answers and logs: false.
 * Mounted in a product team's app, a guard answers the problem itself, not a bare 500: true.
 */
export function answeredAsProblem(ctx: ParameterizedContext<GatehouseState>, error: unknown): boolean {
  if (ctx.state.requestId !== undefined || !isDomainError(error)) return false;
  const requestId = randomUUID();
  ctx.set('X-Request-Id', requestId);
  if (error.retryAfterS !== undefined) ctx.set('Retry-After', String(error.retryAfterS));
  ctx.status = STATUS_BY_CODE[error.code];
  ctx.body = problemBody(error.code, error.message, requestId, error.errors);
  ctx.type = 'application/problem+json';
  return true;
}
