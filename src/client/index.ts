// gatehouse-client: the session check for apps beside a Gatehouse service (contract 9).
export type { GatehouseSessionOptions } from './guard.js';
export {
  createSessionCheck,
  type GatehouseUser,
  type SessionCheck,
  type SessionCheckOptions,
  type SessionCheckResult,
} from './session-check.js';
