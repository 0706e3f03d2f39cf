import type { ThrottleStore } from '../login/throttle-store.port.js';
import type { SessionStore } from './session-store.port.js';

/**
 * A session store of its own (Redis, memory, an embedder's): where sessions and login throttling
 * live when they do not live in the database. Users, directory and audit stay in the database, so
 * this is all a team writes to bring its own store (docs/stores.md).
 */
export interface SessionSide {
  sessions: SessionStore;
  throttle: ThrottleStore;
  /**
   * Readiness: the store answers (`/readyz` asks it, with the database). Optional: a store with no
   * cheap way to tell leaves it out, and readiness is then the database's alone.
   */
  isReady?(): Promise<boolean>;
  close(): Promise<void>;
}
