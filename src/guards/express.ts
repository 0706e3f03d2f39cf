// `gatehouse/express`: the session guard for a product team's own Express 5 routes.
import { expressSessionGuard } from '../adapters/express/express-session-guard.js';
import type { Gatehouse } from '../gatehouse.js';
import { guardSettings, type SessionGuardOptions } from './guard-settings.js';

export type { SessionGuardOptions } from './guard-settings.js';

/** `app.get('/things', sessionGuard(gatehouse), handler)`: the session on `req.gatehouse`. */
export function sessionGuard(
  gatehouse: Gatehouse,
  options: SessionGuardOptions = {},
): ReturnType<typeof expressSessionGuard> {
  return expressSessionGuard(gatehouse.authenticator, guardSettings(gatehouse, options));
}
