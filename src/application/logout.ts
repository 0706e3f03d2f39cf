import type { SessionRecord } from '../domain/session/session.js';
import { hashSessionToken, isWellFormedSessionToken } from '../domain/session/session-token.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';

/** `POST /api/v1/logout/`: deletes the session server-side; idempotent. Returns what it ended. */
export class Logout {
  constructor(
    private readonly store: Store,
    private readonly events: LoginEvents,
  ) {}

  async execute(token: string | null): Promise<SessionRecord | null> {
    if (!token || !isWellFormedSessionToken(token)) return null;
    const ended = await this.store.sessions.deleteByTokenHash(hashSessionToken(token));
    if (ended) this.events.sessionEnded({ userId: ended.userId, why: 'logout', count: 1 });
    return ended;
  }
}
