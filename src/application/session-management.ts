import {
  isSessionAlive,
  type LoginMethod,
  type SessionRecord,
  type SessionTimeouts,
} from '../domain/session/session.js';
import { pageOfSessions } from '../domain/session/session-paging.js';
import type { SessionPage } from '../domain/session/session-store.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { ClientInfo } from './login-result.js';
import type { AuthenticatedSession } from './session-authenticator.js';
import type { SessionEnding } from './session-ending.js';

/** One of the caller's sessions as the caller may see it: by handle, never by token or hash. */
export interface OwnSession {
  handle: string;
  method: LoginMethod;
  /** The provider id an SSO session logged in through (`default`: the environment's); null otherwise. */
  provider: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
  /** The session this request came with. */
  current: boolean;
}

function invalidCursor(): DomainError {
  return new DomainError('INVALID_REQUEST', 'cursor: not a cursor from this list', {
    errors: [{ path: 'cursor', message: 'not a cursor from this list' }],
  });
}

/** The next page starts after this session: its creation time and handle, opaque to clients. */
function encodeCursor(session: SessionRecord): string {
  return Buffer.from(`${session.createdAt.getTime()}.${session.handle}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; handle: string } {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || cursor.length > 128) throw invalidCursor();
  return { createdAt: new Date(Number(match[1])), handle: match[2]! };
}

/**
 * A user's view of their own sessions (ASVS 7.5.2): list them, end one, end all but this one
 * (ASVS 7.4.3 offers it after a credential change; the password change already does it).
 * Every query is scoped to the caller's user id, so another user's handle is simply not found.
 */
export class SessionManagement {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timeouts: SessionTimeouts,
    private readonly ending: SessionEnding,
  ) {}

  /**
   * One page of the caller's live sessions, newest first (timed-out rows awaiting the purge are
   * left out), and the cursor of the next page when more remain (a list is never loaded whole).
   * `cursor` is the opaque `next_cursor` of the previous page.
   */
  async list(
    current: AuthenticatedSession,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ sessions: OwnSession[]; nextCursor: string | null }> {
    const now = this.clock.now();
    const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const found = await this.page(current.user.userId, {
      limit: page.limit + 1,
      ...(after ? { after } : {}),
      alive: { at: now, idleTimeoutS: this.timeouts.idleTimeoutS },
    });
    const sessions = found
      .slice(0, page.limit)
      .filter((session) => isSessionAlive(session, this.timeouts, now));
    const last = found.length > page.limit ? found[page.limit - 1]! : null;
    return {
      sessions: sessions.map((session) => this.own(current, session)),
      nextCursor: last ? encodeCursor(last) : null,
    };
  }

  /** The store's own paging when it declares it; else the user's sessions paged here (the same answer). */
  private async page(userId: string, page: SessionPage): Promise<SessionRecord[]> {
    const { sessions } = this.store;
    if (sessions.capabilities.paging) return sessions.capabilities.paging.listPage(userId, page);
    return pageOfSessions(await sessions.listForUser(userId), page);
  }

  private own(current: AuthenticatedSession, session: SessionRecord): OwnSession {
    return {
      handle: session.handle,
      method: session.method,
      provider: session.sso?.provider ?? null,
      createdAt: session.createdAt,
      lastSeenAt: session.lastSeenAt,
      expiresAt: session.expiresAt,
      clientAddress: session.clientAddress,
      userAgent: session.userAgent,
      current: session.handle === current.session.handle,
    };
  }

  /**
   * Ends one of the caller's sessions; NOT_FOUND when the caller has none with this handle
   * (whether it is another user's or no one's: nothing leaks). Returns whether it was the
   * current one (the route then clears the cookie).
   */
  async end(
    current: AuthenticatedSession,
    handle: string,
    client: ClientInfo,
  ): Promise<{ current: boolean }> {
    const { user } = current;
    const ended = await this.ending.unit((_, end) =>
      end.byHandle(user.userId, handle, {
        reason: 'revoked',
        user,
        clientAddress: client.clientAddress,
      }),
    );
    if (!ended) throw new DomainError('NOT_FOUND', 'You have no session with this handle.');
    return { current: handle === current.session.handle };
  }

  /**
   * Ends every session of the caller but this one; returns how many live ones ended (rows
   * already timed out, awaiting the purge, go too but were not listed, so are not counted).
   */
  endOthers(current: AuthenticatedSession, client: ClientInfo): Promise<number> {
    const { user } = current;
    const now = this.clock.now();
    return this.ending.unit(async (repositories, end) => {
      // Bounded by SESSIONS_PER_USER_MAX.
      const listed = await repositories.sessions.listForUser(user.userId);
      const live = listed.filter(
        (session) => session.tokenHash !== current.tokenHash && isSessionAlive(session, this.timeouts, now),
      ).length;
      // One ended meanwhile by another request is not counted twice.
      return end.ofUser(
        user,
        { reason: 'revoked_others', clientAddress: client.clientAddress },
        { except: current.tokenHash, atMost: live },
      );
    });
  }
}
