// `@gatehouse-auth/gatehouse/express`: the session guard for a product team's own Express 5 routes.
export {
  type GatehouseSessionOptions,
  type GatehouseUser,
  gatehouseSession,
  type SessionGuardSource,
} from '../adapters/http/skins/express.js';
