// `gatehouse/fastify`: the session guard for a product team's own Fastify routes.
import { fastifySessionGuard, fastifySessionPlugin } from '../adapters/fastify/fastify-session-guard.js';
import type { Gatehouse } from '../gatehouse.js';
import { guardSettings, type SessionGuardOptions } from './guard-settings.js';

export type { SessionGuardOptions } from './guard-settings.js';

/** `app.get('/things', { preHandler: sessionGuard(gatehouse) }, handler)`: the session on `request.gatehouse`. */
export function sessionGuard(
  gatehouse: Gatehouse,
  options: SessionGuardOptions = {},
): ReturnType<typeof fastifySessionGuard> {
  return fastifySessionGuard(gatehouse.authenticator, guardSettings(gatehouse, options));
}

/** `await app.register(sessionPlugin(gatehouse))`: every route registered after it is guarded. */
export function sessionPlugin(
  gatehouse: Gatehouse,
  options: SessionGuardOptions = {},
): ReturnType<typeof fastifySessionPlugin> {
  return fastifySessionPlugin(gatehouse.authenticator, guardSettings(gatehouse, options));
}
