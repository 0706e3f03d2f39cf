import type { Middleware } from 'koa';
import type { SessionAuthenticator } from '../../application/session-authenticator.js';
import { guardRefusal } from '../http/guard-problem.js';
import { type GuardSettings, productGuard } from '../http/session-guard.js';
import type { GatehouseState } from '../http/state.js';
import { koaRequest, writeKoaReply } from './koa-app.js';

/**
 * The session guard for a product team's own Koa routes (`gatehouse/koa`): the Origin check on
 * unsafe methods, the session check and the expired-credentials gate. The handler finds the user
 * on `ctx.state.gatehouse`; a refusal is answered as problem+json.
 */
export function koaSessionGuard(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  settings: GuardSettings,
): Middleware<GatehouseState> {
  const guard = productGuard(authenticator, settings);
  return async (ctx, next) => {
    try {
      ctx.state.gatehouse = await guard(koaRequest(ctx));
    } catch (error) {
      const refusal = guardRefusal(error);
      if (!refusal) throw error;
      writeKoaReply(ctx, refusal);
      return;
    }
    await next();
  };
}
