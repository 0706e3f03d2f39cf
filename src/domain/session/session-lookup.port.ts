import type { SessionWithUser } from './session.js';

/**
 * What every authenticated request needs (the hot path): the session a cookie names, with its
 * user's current state (disabled users included; the caller decides), or null. Not part of the
 * SessionRepository: the session and the user may live in different stores (Redis and the
 * database), and only a store that holds both can answer in one query (the SQL store's join).
 * Nothing is cached: a revocation or a disabled user is seen by the next lookup.
 */
export interface SessionLookup {
  findSessionWithUser(tokenHash: string): Promise<SessionWithUser | null>;
}
