import type { AuthenticatedSession } from '../../application/session-authenticator.js';

/** What Gatehouse middleware puts on `ctx.state`. */
export interface GatehouseState {
  requestId: string;
  /** Set by the session guard. */
  gatehouse?: AuthenticatedSession;
}
