import type { SessionRecord, SsoOrigin, StoredSession } from './session.js';
import type { SessionLookup } from './session-lookup.port.js';

/**
 * The sessions as a plain unit of work sees them: create, find, touch and list, never end. Ending a
 * session writes its audit record and reports it (`SessionEnding`, the one way), so the deleting
 * operations are on `SessionStore` alone, which only that use case is handed (`EndingStore`).
 * A store's own forgetting (its time-to-live, or the purge of timed-out rows) is not an ending.
 */
export interface SessionKeeping {
  /** What this store can do beyond the required operations, but end sessions; each absent when it cannot. */
  readonly capabilities: KeepingCapabilities;
  /**
   * Stores a new session. `keepUntil` is when the store may forget it (its earlier time-out plus
   * a grace, `sessionKeepUntil`): until then it must be found; after, it may be gone. Every read
   * gives back what was stored, `auth` included (`authTime` to the millisecond), and no `auth` for
   * a session stored without one: docs/stores.md "What a store must keep".
   */
  create(session: StoredSession, keepUntil: Date): Promise<void>;
  /**
   * The session by token hash, without the provider tokens, or null. Timed-out sessions not yet
   * forgotten are returned as they are: the domain decides (and ends them with an audit record).
   */
  findByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  /** Moves last-seen forward (never back) and the session's `keepUntil` with it. */
  touch(tokenHash: string, now: Date, keepUntil: Date): Promise<void>;
  /**
   * Every session of the user (the per-user index), in any order, without provider tokens; timed
   * out ones not yet forgotten included. Bounded by SESSIONS_PER_USER_MAX.
   */
  listForUser(userId: string): Promise<SessionRecord[]>;
}

/**
 * Where sessions live. Shaped for key/value stores (Redis, Valkey, DynamoDB, memory), not for SQL:
 * every required operation touches one session, one user's sessions or one provider session, and
 * the store owns expiry (it is told, with each write, when it may forget the session). What only
 * some stores can do cheaply is an optional capability the store declares (`capabilities`); the
 * application then uses it, or its documented fallback. docs/stores.md says what a store must do,
 * may do, and why ("What a store must do", "What a store may do: optional capabilities", "Why: no
 * transaction spans two stores"); `gatehouse-testing/stores` proves it.
 */
export interface SessionStore extends SessionKeeping {
  /** What this store can do beyond the required operations; each absent when it cannot. */
  readonly capabilities: SessionStoreCapabilities;
  /**
   * Deletes and returns the session with its provider tokens (the provider logout and a rotation
   * need them), or null when there was none. Of two concurrent calls, one gets the session.
   */
  deleteByTokenHash(tokenHash: string): Promise<StoredSession | null>;
  /** Ends every session of the user except the one given; returns how many ended. */
  deleteAllForUser(userId: string, exceptTokenHash?: string): Promise<number>;
  /** Ends the user's session with this handle; false when the user has none with it. */
  deleteByHandle(userId: string, handle: string): Promise<boolean>;
  /**
   * Back-channel logout: ends the SSO sessions of this provider and issuer whose provider `sid` and `sub` match
   * every one given (both when a logout token names both), and returns them (the audit trail names
   * their users). Neither given ends nothing.
   */
  deleteBySso(origin: SsoOrigin, by: { sid?: string; subject?: string }): Promise<SessionRecord[]>;
  /**
   * Keeps the user's `keep` most recently used sessions (by last-seen; the older created first
   * among equals) and ends the others, returning them. Exact under concurrent logins of one user:
   * the store serialises them per user (a row lock, a one-key script, a single thread).
   */
  evictBeyond(userId: string, keep: number): Promise<SessionRecord[]>;
}

/**
 * Optional capabilities. A store declares one by providing it; the application checks for it and
 * otherwise uses the fallback named here. Declared, never faked: a store that cannot do one well
 * leaves it out.
 */
export interface SessionStoreCapabilities extends KeepingCapabilities {
  /**
   * Ends every session of every user in one operation. Without it: the administrator's "end all"
   * ends each user's sessions in turn (`deleteAllForUser`), user by user from the user store.
   */
  endAll?: EndAllSessions;
  /**
   * A session ends and another of the same user takes its place, in one operation (a finished
   * second step, a password change's rotation). Without it: `findByTokenHash` (another user's
   * session is left alone), then `deleteByTokenHash`, then `create`.
   */
  replace?: SessionReplace;
}

/** The capabilities a plain unit of work may use: all but "end all". */
export interface KeepingCapabilities {
  /**
   * The store does not forget sessions by itself (a table): the periodic purge deletes timed-out
   * ones in batches. Without it: nothing to do, the store forgets at `keepUntil`.
   */
  purge?: SessionPurge;
  /**
   * Keyset pages of one user's live sessions, filtered and ordered by the store. Without it: the
   * user's sessions (`listForUser`, bounded by the per-user cap) are paged in memory
   * (`pageOfSessions`), which gives the same answer.
   */
  paging?: SessionPaging;
  /**
   * The session with its user in one lookup (the hot path), when the store holds users too (the
   * SQL join). Without it: the session, then its user from the user store.
   */
  lookupWithUser?: SessionLookup;
}

export interface SessionPurge {
  /** Deletes up to `limit` sessions whose absolute or idle time-out has passed; returns how many. */
  purgeExpired(now: Date, idleTimeoutS: number, limit: number): Promise<number>;
}

/** Where a page of a user's sessions starts, and which count as alive. */
export interface SessionPage {
  limit: number;
  /** The last session of the previous page: this page starts after it. */
  after?: { createdAt: Date; handle: string };
  /** Only sessions alive at `at` (neither time-out passed); all of them when left out. */
  alive?: { at: Date; idleTimeoutS: number };
}

export interface SessionPaging {
  /** One page of the user's sessions, newest first by (created_at, handle). At most `limit`. */
  listPage(userId: string, page: SessionPage): Promise<SessionRecord[]>;
}

export interface SessionReplace {
  /**
   * Deletes the session with `oldTokenHash` when it is `next`'s user's, and stores `next` (as
   * `create` does) only then; returns the deleted one with its provider tokens, or null when there
   * was none of that user (nothing written). Of two concurrent calls for one old session, one wins.
   */
  replaceSession(oldTokenHash: string, next: StoredSession, keepUntil: Date): Promise<StoredSession | null>;
}

export interface EndAllSessions {
  /** Ends every session of every user; returns how many ended. */
  deleteAll(): Promise<number>;
}
