import type { Middleware } from 'koa';
import type { SessionAuthenticator } from '../../application/session-authenticator.js';
import { originRefusal } from './origin-check.js';
import { answeredAsProblem, type SessionGuardOptions, sessionGuard } from './session-guard.js';
import type { GatehouseState } from './state.js';

export interface EmbeddedSessionGuardOptions extends SessionGuardOptions {
  /**
   * Origins besides the product app's own whose state-changing requests are accepted (the
   * portal's, when it calls this app's API from a browser). Default: none.
   */
  trustedOrigins?: readonly string[];
}

/**
 * The session guard product teams mount on their own Koa routes (the package's `sessionGuard`).
 * A cookie-authenticated route is a CSRF target, and a product app has no Gatehouse `originCheck`
 * in front of it: so for unsafe methods this guard refuses a foreign `Origin` or a cross-site
 * `Sec-Fetch-Site` first (403 ORIGIN_REJECTED, issue 11, finding 11), then checks the session.
 */
export function embeddedSessionGuard(
  authenticator: SessionAuthenticator,
  options: EmbeddedSessionGuardOptions,
): Middleware<GatehouseState> {
  const trusted = new Set(options.trustedOrigins ?? []);
  const checkSession = sessionGuard(authenticator, options);
  return async (ctx, next) => {
    const refusal = originRefusal(ctx, trusted);
    if (refusal) {
      if (answeredAsProblem(ctx, refusal)) return;
      throw refusal;
    }
    await checkSession(ctx, next);
  };
}
