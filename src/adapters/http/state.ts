import type { GatehouseUser } from '../../client/gatehouse-user.js';

/** What Gatehouse's session guard puts on Koa's `ctx.state`. */
export interface GatehouseState {
  /** Who the session belongs to (contract 9). */
  gatehouse?: GatehouseUser;
}
