import type { SessionRecord, SessionWithUser } from './session.js';

export interface SessionRepository {
  create(session: SessionRecord): Promise<void>;
  /** One indexed lookup by token hash, joined with the user (disabled users included; the caller decides). */
  findByTokenHash(tokenHash: string): Promise<SessionWithUser | null>;
  touch(tokenHash: string, now: Date): Promise<void>;
  /** Deletes and returns the session, or null when there was none. */
  deleteByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  /** Ends every session of the user except the one given; returns how many ended. */
  deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number>;
  /** Ends every session of every user (the administrator's emergency route); returns how many ended. */
  deleteAll(): Promise<number>;
  /** Back-channel logout: ends SSO sessions of this issuer with this provider `sid` or `sub`. */
  deleteBySso(issuer: string, by: { sid?: string; subject?: string }): Promise<number>;
  /** As `deleteBySso`, returning the sessions it ended (the audit trail names their users). */
  deleteBySsoReturning(issuer: string, by: { sid?: string; subject?: string }): Promise<SessionRecord[]>;
  listForUser(userId: string): Promise<SessionRecord[]>;
  deleteByHandle(userId: string, handle: string): Promise<boolean>;
  /** Deletes up to `limit` sessions whose absolute or idle time-out has passed; returns how many. */
  purgeExpired(now: Date, idleTimeoutS: number, limit: number): Promise<number>;
}
