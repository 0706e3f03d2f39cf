// `@gatehouse-auth/gatehouse/fastify`: the session guard for a product team's own Fastify routes.
export {
  type GatehouseSessionOptions,
  type GatehouseUser,
  gatehouseSession,
  type SessionGuardSource,
} from '../adapters/http/skins/fastify.js';
