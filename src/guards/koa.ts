// `gatehouse/koa`: the session guard for a product team's own Koa routes.
import { koaSessionGuard } from '../adapters/koa/koa-session-guard.js';
import type { Gatehouse } from '../gatehouse.js';
import { guardSettings, type SessionGuardOptions } from './guard-settings.js';

export type { GatehouseState } from '../adapters/http/state.js';
export type { SessionGuardOptions } from './guard-settings.js';

/** `router.get('/things', sessionGuard(gatehouse), handler)`: the session on `ctx.state.gatehouse`. */
export function sessionGuard(
  gatehouse: Gatehouse,
  options: SessionGuardOptions = {},
): ReturnType<typeof koaSessionGuard> {
  return koaSessionGuard(gatehouse.authenticator, guardSettings(gatehouse, options));
}
