import type { ThrottleStore } from '../../domain/login/throttle-store.port.js';
import type { SessionWithUser, StoredSession } from '../../domain/session/session.js';
import type { SessionSide } from '../../domain/session/session-side.port.js';
import type { SessionStore } from '../../domain/session/session-store.port.js';
import type { EndingRepositories, EndingStore, Store } from '../../domain/store.port.js';

/**
 * The Store when sessions and throttling live apart from users, directory and audit
 * (SESSION_STORE=redis): the database keeps what must be transactional with users, the session
 * side takes the hot, short-lived keys.
 *
 * A unit of work can no longer be one transaction across both, so its meaning is stated here, and
 * every use case is written to it:
 * - the database part is one transaction, as before;
 * - session-side writes happen when called, inside that transaction's callback, so a failure of
 *   the session side aborts the unit and the database part rolls back (nothing answered success);
 * - if the database part fails or rolls back after sessions were created in it, those sessions
 *   are deleted again (a login that was not answered leaves no session behind); ended sessions
 *   stay ended, which is the safe direction: a revocation never comes back.
 * Use cases order their steps so that this suffices: a password change deletes the other sessions
 * before its transaction commits, and a login holds the user's password row after creating its
 * session, so a change committed in between ends that login (and its session is deleted).
 */
export class SplitStore implements EndingStore {
  readonly users;
  readonly directory;
  readonly audit;
  readonly logoutTokens;
  readonly secrets;
  readonly mfa;
  readonly sessions: SessionStore;
  readonly throttle: ThrottleStore;

  /**
   * `sessionUsers` finds the user of each session check (a batched lookup on the database; the
   * database's own user repository when none is given).
   */
  constructor(
    private readonly database: EndingStore,
    private readonly side: SessionSide,
    private readonly sessionUsers: Pick<Store['users'], 'findByUserId'> = database.users,
  ) {
    this.users = database.users;
    this.directory = database.directory;
    this.audit = database.audit;
    this.logoutTokens = database.logoutTokens;
    this.secrets = database.secrets;
    this.mfa = database.mfa;
    this.sessions = side.sessions;
    this.throttle = side.throttle;
  }

  /**
   * The session store's own lookup with the user when it declares one; otherwise two lookups, no
   * cache: the session, then its user's current state (disabled, expired...).
   */
  async findSessionWithUser(tokenHash: string): Promise<SessionWithUser | null> {
    const fast = this.side.sessions.capabilities.lookupWithUser;
    if (fast) return fast.findSessionWithUser(tokenHash);
    const session = await this.side.sessions.findByTokenHash(tokenHash);
    if (!session) return null;
    const user = await this.sessionUsers.findByUserId(session.userId);
    return user ? { session, user } : null;
  }

  async transaction<T>(work: (repositories: EndingRepositories) => Promise<T>): Promise<T> {
    const created: string[] = [];
    const sessions = recordingCreates(this.side.sessions, created);
    try {
      return await this.database.transaction((repositories) =>
        work({ ...repositories, sessions, throttle: this.side.throttle }),
      );
    } catch (error) {
      // Best effort: should the session side be down too, the session outlives nothing it can
      // harm: its token was never handed out.
      await Promise.all(
        created.map((tokenHash) => this.side.sessions.deleteByTokenHash(tokenHash).catch(() => null)),
      );
      throw error;
    }
  }

  async isReady(): Promise<boolean> {
    const [database, side] = await Promise.all([
      this.database.isReady(),
      this.side.isReady ? this.side.isReady() : true,
    ]);
    return database && side;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.side.close(), this.database.close()]);
  }
}

/**
 * The session repository, noting the token hash of every session stored through it: by `create`,
 * and by the `replace` capability, which stores one too.
 */
function recordingCreates(sessions: SessionStore, created: string[]): SessionStore {
  return new Proxy(sessions, {
    get(target, property, receiver) {
      if (property === 'create') {
        return async (session: StoredSession, keepUntil: Date) => {
          created.push(session.tokenHash);
          await target.create(session, keepUntil);
        };
      }
      if (property === 'capabilities' && target.capabilities.replace) {
        const { replace } = target.capabilities;
        return {
          ...target.capabilities,
          replace: {
            replaceSession: (oldTokenHash: string, next: StoredSession, keepUntil: Date) => {
              created.push(next.tokenHash);
              return replace.replaceSession(oldTokenHash, next, keepUntil);
            },
          },
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
