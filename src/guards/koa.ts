// `@gatehouse-auth/gatehouse/koa`: the session guard for a product team's own Koa routes.
export {
  type GatehouseSessionOptions,
  type GatehouseState,
  type GatehouseUser,
  gatehouseSession,
  type SessionGuardSource,
} from '../adapters/http/skins/koa.js';
