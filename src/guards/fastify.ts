// `gatehouse/fastify`: the session guard for a product team's own Fastify routes.
import { fastifySessionPlugin } from '../adapters/fastify/fastify-session-guard.js';
import { type GatehouseSessionOptions, guardSettings } from './guard-settings.js';

export type { GatehouseUser } from '../client/gatehouse-user.js';
export type { GatehouseSessionOptions } from './guard-settings.js';

/**
 * `await app.register(gatehouseSession, { gatehouse })`: every route registered after it in that
 * scope is guarded, the user on `request.gatehouse`.
 */
export const gatehouseSession = fastifySessionPlugin((options: GatehouseSessionOptions) => ({
  authenticator: options.gatehouse.authenticator,
  settings: guardSettings(options),
}));
