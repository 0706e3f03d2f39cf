import type { SessionRecord, StoredSession } from './session.js';

/** Where a page of a user's sessions starts, and which count as alive. */
export interface SessionPage {
  limit: number;
  /** The last session of the previous page: this page starts after it. */
  after?: { createdAt: Date; handle: string };
  /** Only sessions alive at `at` (neither time-out passed); all of them when left out. */
  alive?: { at: Date; idleTimeoutS: number };
}

export interface SessionRepository {
  create(session: StoredSession): Promise<void>;
  /**
   * The session by token hash, without the provider tokens, or null. The hot path does not call
   * this: it asks the store for the session with its user (`SessionLookup`), which a store may
   * answer in one query.
   */
  findByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  touch(tokenHash: string, now: Date): Promise<void>;
  /**
   * Deletes and returns the session with its provider tokens (the provider logout and a rotation
   * need them), or null when there was none.
   */
  deleteByTokenHash(tokenHash: string): Promise<StoredSession | null>;
  /** Ends every session of the user except the one given; returns how many ended. */
  deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number>;
  /** Ends every session of every user (the administrator's emergency route); returns how many ended. */
  deleteAll(): Promise<number>;
  /**
   * Back-channel logout: ends the SSO sessions of this issuer whose provider `sid` and `sub` match
   * every one given (both when a logout token names both; issue 14, finding 8), and returns them
   * (the audit trail names their users). Neither given ends nothing.
   */
  deleteBySso(issuer: string, by: { sid?: string; subject?: string }): Promise<SessionRecord[]>;
  /**
   * One page of the user's sessions (only the live ones with `alive`), newest first by
   * (created_at, handle), starting after `after` when given. At most `limit`.
   */
  listForUser(userId: string, page: SessionPage): Promise<SessionRecord[]>;
  /**
   * Keeps the user's `keep` most recently used sessions (by last-seen) and ends the others,
   * returning them. Exact under concurrent logins of one user: a store serialises them per user.
   */
  evictBeyond(userId: string, keep: number): Promise<SessionRecord[]>;
  deleteByHandle(userId: string, handle: string): Promise<boolean>;
  /** Deletes up to `limit` sessions whose absolute or idle time-out has passed; returns how many. */
  purgeExpired(now: Date, idleTimeoutS: number, limit: number): Promise<number>;
}
