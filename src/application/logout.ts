import type { SessionRecord } from '../domain/session/session.js';
import { hashSessionToken, isWellFormedSessionToken } from '../domain/session/session-token.js';
import type { ClientInfo } from './login-result.js';
import type { SessionEnding } from './session-ending.js';

/** `POST /api/v1/logout/`: deletes the session server-side; idempotent. Returns what it ended. */
export class Logout {
  constructor(private readonly ending: SessionEnding) {}

  execute(token: string | null, client?: ClientInfo): Promise<SessionRecord | null> {
    if (!token || !isWellFormedSessionToken(token)) return Promise.resolve(null);
    return this.ending.one(hashSessionToken(token), {
      reason: 'logout',
      clientAddress: client?.clientAddress ?? null,
    });
  }
}
