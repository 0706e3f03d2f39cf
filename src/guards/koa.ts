// `gatehouse/koa`: the session guard for a product team's own Koa routes.
import { koaSessionGuard } from '../adapters/koa/koa-session-guard.js';
import { type GatehouseSessionOptions, guardSettings } from './guard-settings.js';

export type { GatehouseState } from '../adapters/http/state.js';
export type { GatehouseUser } from '../client/gatehouse-user.js';
export type { GatehouseSessionOptions } from './guard-settings.js';

/** `app.use(gatehouseSession({ gatehouse }))` or on one route: the user on `ctx.state.gatehouse`. */
export function gatehouseSession(options: GatehouseSessionOptions): ReturnType<typeof koaSessionGuard> {
  return koaSessionGuard(options.gatehouse.authenticator, guardSettings(options));
}
