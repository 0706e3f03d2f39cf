// `gatehouse/express`: the session guard for a product team's own Express 5 routes.
import { expressSessionGuard } from '../adapters/express/express-session-guard.js';
import { type GatehouseSessionOptions, guardSettings } from './guard-settings.js';

export type { GatehouseUser } from '../client/gatehouse-user.js';
export type { GatehouseSessionOptions } from './guard-settings.js';

/** `app.use(gatehouseSession({ gatehouse }))` or on one route: the user on `req.gatehouse`. */
export function gatehouseSession(options: GatehouseSessionOptions): ReturnType<typeof expressSessionGuard> {
  return expressSessionGuard(options.gatehouse.authenticator, guardSettings(options));
}
