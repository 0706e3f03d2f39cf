import { type AuditActor, auditEvent } from '../domain/audit/audit-event.js';
import type { LoginMethod, SessionRecord, SsoOrigin, StoredSession } from '../domain/session/session.js';
import {
  SESSION_END_AUDIT,
  type SessionEndReason,
  UNCOUNTED_END_REASONS,
} from '../domain/session/session-end.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { EndingRepositories, EndingStore } from '../domain/store.port.js';
import type { User } from '../domain/user/user.js';
import type { LoginEvents } from './login-events.js';

/** Users read per query when "end all" goes user by user. */
const USERS_PER_PAGE = 500;

/** Why and by whom sessions end, as their audit record tells it. */
export interface EndingCause {
  reason: SessionEndReason;
  /** Who ended them; the reason's usual actor when left out. */
  actor?: AuditActor;
  /** The account, when the caller knows it (the record then names its username). */
  user?: { userId: string; username: string } | null;
  clientAddress?: string | null;
  /** The login method the record names; each session's own when left out. */
  method?: LoginMethod | null;
  /**
   * False when the caller's own record covers this end (the session a password change rotates is
   * named by the `password_change` record). Counted and reported all the same.
   */
  audited?: boolean;
}

/** What one unit of work ended, as reported to `LoginEvents.sessionEnded` after it committed. */
interface Ended {
  userId: string | null;
  reason: SessionEndReason;
  count: number;
}

/**
 * Ends sessions inside one unit of work: deletes them, writes their audit record in the same unit,
 * and notes what ended; `SessionEnding.unit` reports it once the unit committed. Every path that
 * ends a session goes through here, so the metric and the log line count every end.
 */
export class SessionEnder {
  constructor(
    readonly repositories: EndingRepositories,
    private readonly clock: Clock,
    private readonly ended: Ended[],
  ) {}

  /** The session with this token hash, with its provider tokens; null when there was none. */
  async one(tokenHash: string, cause: EndingCause): Promise<StoredSession | null> {
    const session = await this.repositories.sessions.deleteByTokenHash(tokenHash);
    if (session) await this.each([session], cause);
    return session;
  }

  /**
   * The session with this token hash, if it is `next`'s user's, and `next` stored in its place (in
   * one operation where the store can: `capabilities.replace`). Nothing is ended nor written when
   * there was none, or when it is another user's: that session is left as it was, on every store.
   * Returns the ended one with its provider tokens, or null.
   */
  async replacedBy(
    tokenHash: string,
    next: StoredSession,
    keepUntil: Date,
    cause: EndingCause,
  ): Promise<StoredSession | null> {
    const { replace } = this.repositories.sessions.capabilities;
    const ended = replace
      ? await replace.replaceSession(tokenHash, next, keepUntil)
      : await this.replacedInTurn(tokenHash, next, keepUntil);
    if (ended) await this.each([ended], cause);
    return ended;
  }

  /**
   * `replacedBy` without the capability: the session is read first, and deleted only when it is
   * `next`'s user's. The read and the delete are two operations, which is safe: a token hash names
   * one session for good (a random token, a user that never changes), so between them the session
   * can only end (a logout, a concurrent replacement), never become another user's; then the
   * delete finds nothing and nothing is written (of two concurrent replacements, one wins).
   */
  private async replacedInTurn(
    tokenHash: string,
    next: StoredSession,
    keepUntil: Date,
  ): Promise<StoredSession | null> {
    const { sessions } = this.repositories;
    const found = await sessions.findByTokenHash(tokenHash);
    if (found?.userId !== next.userId) return null;
    const ended = await sessions.deleteByTokenHash(tokenHash);
    if (ended) await sessions.create(next, keepUntil);
    return ended;
  }

  /** The user's session with this handle; false when the user has none with it. */
  async byHandle(userId: string, handle: string, cause: EndingCause): Promise<boolean> {
    if (!(await this.repositories.sessions.deleteByHandle(userId, handle))) return false;
    await this.counted(userId, 1, cause, handle);
    return true;
  }

  /**
   * Every session of the user but `except`; one record for all of them. Returns how many ended,
   * at most `atMost` (the caller counted the live ones: rows awaiting the purge are not counted).
   */
  async ofUser(
    user: { userId: string; username: string },
    cause: EndingCause,
    options: { except?: string; atMost?: number } = {},
  ): Promise<number> {
    const deleted = await this.repositories.sessions.deleteAllForUser(user.userId, options.except);
    const count = Math.min(deleted, options.atMost ?? deleted);
    await this.counted(user.userId, count, { user, ...cause });
    return count;
  }

  /** Back-channel logout: the SSO sessions matching every identifier given; a record each. */
  async bySso(origin: SsoOrigin, by: { sid?: string; subject?: string }, cause: EndingCause) {
    const sessions = await this.repositories.sessions.deleteBySso(origin, by);
    await this.each(sessions, cause);
    return sessions;
  }

  /** The user's least recently used sessions beyond `keep`; a record each. */
  async beyond(user: { userId: string; username: string }, keep: number, cause: EndingCause) {
    const sessions = await this.repositories.sessions.evictBeyond(user.userId, keep);
    await this.each(sessions, { user, ...cause });
    return sessions;
  }

  /**
   * Every session of every user; one record naming no user. A store without the "end all"
   * capability ends each user's sessions in turn, users paged from the user store.
   */
  async all(cause: EndingCause): Promise<number> {
    const { sessions, users } = this.repositories;
    let count = 0;
    if (sessions.capabilities.endAll) {
      count = await sessions.capabilities.endAll.deleteAll();
    } else {
      for await (const page of pages(
        (after) => users.listUserIds(after, USERS_PER_PAGE),
        (id) => id,
      )) {
        for (const userId of page) count += await sessions.deleteAllForUser(userId);
      }
    }
    await this.counted(null, count, cause);
    return count;
  }

  /**
   * The SSO sessions made through this provider, of every user bound to it (of those `which`
   * picks, when given); a record each. Only required operations: the bound users from the user
   * store, each one's sessions from the per-user index, so every store, never-presented sessions
   * included. Complete because a login binds its user before its session exists, and unbinding a
   * user ends its sessions through that provider (`throughProviderOf`). Returns how many ended.
   */
  async throughProvider(
    providerId: string,
    cause: EndingCause,
    which: (user: User) => boolean = () => true,
  ): Promise<number> {
    const { users } = this.repositories;
    let count = 0;
    for await (const page of pages(
      (after) => users.listBoundTo(providerId, after, USERS_PER_PAGE),
      (user) => user.userId,
    )) {
      for (const user of page)
        if (which(user)) count += await this.throughProviderOf(user, providerId, cause);
    }
    return count;
  }

  /** One user's SSO sessions made through this provider; a record each. Returns how many ended. */
  async throughProviderOf(
    user: { userId: string; username: string },
    providerId: string,
    cause: EndingCause,
  ): Promise<number> {
    const sessions = await this.repositories.sessions.listForUser(user.userId);
    let count = 0;
    for (const session of sessions) {
      if (session.sso?.provider !== providerId) continue;
      // Null when it ended meanwhile (a logout, the check of an instance): not counted twice.
      if (await this.one(session.tokenHash, { user, ...cause })) count += 1;
    }
    return count;
  }

  private async each(sessions: readonly SessionRecord[], cause: EndingCause): Promise<void> {
    for (const session of sessions) {
      await this.record(cause, {
        userId: session.userId,
        count: UNCOUNTED_END_REASONS.has(cause.reason) ? null : 1,
        handle: session.handle,
        method: session.method,
      });
      this.note(session.userId, cause.reason, 1);
    }
  }

  private async counted(
    userId: string | null,
    count: number,
    cause: EndingCause,
    handle: string | null = null,
  ): Promise<void> {
    if (count === 0) return;
    await this.record(cause, { userId, count, handle, method: null });
    this.note(userId, cause.reason, count);
  }

  private async record(
    cause: EndingCause,
    ended: { userId: string | null; count: number | null; handle: string | null; method: LoginMethod | null },
  ): Promise<void> {
    if (cause.audited === false) return;
    const usual = SESSION_END_AUDIT[cause.reason];
    await this.repositories.audit.record(
      auditEvent({
        occurredAt: this.clock.now(),
        event: usual.event,
        reason: usual.reason,
        actor: cause.actor ?? usual.actor,
        userId: ended.userId,
        username: cause.user?.username ?? null,
        sessionHandle: ended.handle,
        sessionCount: ended.count,
        method: cause.method === undefined ? ended.method : cause.method,
        clientAddress: cause.clientAddress ?? null,
      }),
    );
  }

  private note(userId: string | null, reason: SessionEndReason, count: number): void {
    const same = this.ended.find((entry) => entry.userId === userId && entry.reason === reason);
    if (same) same.count += count;
    else this.ended.push({ userId, reason, count });
  }
}

/** Keyset pages of `USERS_PER_PAGE` from `read`, until a short page. */
async function* pages<T>(
  read: (after: string | null) => Promise<T[]>,
  keyOf: (item: T) => string,
): AsyncGenerator<T[]> {
  let after: string | null = null;
  for (;;) {
    const page = await read(after);
    yield page;
    if (page.length < USERS_PER_PAGE) return;
    after = keyOf(page.at(-1)!);
  }
}

/**
 * The one way sessions end (use case): logout, SSO and back-channel logout, a user's and an
 * administrator's revocations, a password change, disabling, eviction at the cap, replacement by
 * a login, a time-out. Deleted, audited in the same unit of work, then reported.
 */
export class SessionEnding {
  constructor(
    private readonly store: EndingStore,
    private readonly clock: Clock,
    private readonly events: LoginEvents,
  ) {}

  /**
   * Runs `work` as one unit of work in which sessions may end; what ended is reported once the
   * unit committed (an aborted unit on a transactional store ended nothing).
   */
  async unit<T>(work: (repositories: EndingRepositories, end: SessionEnder) => Promise<T>): Promise<T> {
    const ended: Ended[] = [];
    const result = await this.store.transaction((repositories) =>
      work(repositories, new SessionEnder(repositories, this.clock, ended)),
    );
    for (const entry of ended) this.events.sessionEnded(entry);
    return result;
  }

  /** One session, in a unit of its own. */
  one(tokenHash: string, cause: EndingCause): Promise<StoredSession | null> {
    return this.unit((_, end) => end.one(tokenHash, cause));
  }
}
