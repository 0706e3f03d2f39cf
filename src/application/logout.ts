import { auditEvent } from '../domain/audit/audit-event.js';
import type { SessionRecord } from '../domain/session/session.js';
import { hashSessionToken, isWellFormedSessionToken } from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { systemClock } from '../domain/shared/clock.port.js';
import type { Store } from '../domain/store.port.js';
import type { LoginEvents } from './login-events.js';
import type { ClientInfo } from './login-result.js';

/** `POST /api/v1/logout/`: deletes the session server-side; idempotent. Returns what it ended. */
export class Logout {
  constructor(
    private readonly store: Store,
    private readonly events: LoginEvents,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(token: string | null, client?: ClientInfo): Promise<SessionRecord | null> {
    if (!token || !isWellFormedSessionToken(token)) return null;
    // The session ends and its audit record is written together.
    const ended = await this.store.transaction(async (repositories) => {
      const session = await repositories.sessions.deleteByTokenHash(hashSessionToken(token));
      if (session) {
        await repositories.audit.record(
          auditEvent({
            occurredAt: this.clock.now(),
            event: 'logout',
            actor: 'user',
            userId: session.userId,
            sessionHandle: session.handle,
            method: session.method,
            clientAddress: client?.clientAddress ?? null,
          }),
        );
      }
      return session;
    });
    if (ended) this.events.sessionEnded({ userId: ended.userId, why: 'logout', count: 1 });
    return ended;
  }
}
