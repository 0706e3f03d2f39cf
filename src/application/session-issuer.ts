import { auditEvent } from '../domain/audit/audit-event.js';
import { idsFor } from '../domain/profile/ids.js';
import { buildProfile } from '../domain/profile/profile.js';
import type { SsoSessionData } from '../domain/session/session.js';
import {
  hashSessionToken,
  isWellFormedSessionToken,
  newSessionHandle,
  newSessionToken,
} from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import type { Random } from '../domain/shared/random.port.js';
import type { Repositories } from '../domain/store.port.js';
import type { User } from '../domain/user/user.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import type { SessionSettings } from './session-settings.js';

const USER_AGENT_MAX = 512;

/**
 * Creates the session of a successful login, the same way for every kind of login: a fresh
 * 256-bit token (fixation defence: a token sent with the login is revoked first), the first-login
 * mark, and the spec's `ids` and `profile`.
 */
export class SessionIssuer {
  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly settings: SessionSettings,
  ) {}

  async issue(
    repositories: Repositories,
    input: {
      user: User;
      method: 'password' | 'sso';
      presentedTokens: readonly string[];
      client: ClientInfo;
      sso?: SsoSessionData;
      /** A password change keeps the first-login mark as it was. */
      countAsLogin?: boolean;
      /**
       * The absolute expiry of the new session. A rotation (password change) keeps the one of
       * the session it replaces: rotating must not extend a session's life. Default: a full one.
       */
      expiresAt?: Date;
    },
  ): Promise<LoginResult> {
    const now = this.clock.now();
    // Every session the login's cookies name ends, whoever's it is, and the end is audited
    // (issue 14, finding 2): a login over another account's session is not silent.
    for (const presented of input.presentedTokens) {
      if (!isWellFormedSessionToken(presented)) continue;
      const ended = await repositories.sessions.deleteByTokenHash(hashSessionToken(presented));
      if (!ended) continue;
      await repositories.audit.record(
        auditEvent({
          occurredAt: now,
          event: 'session_revoked',
          reason: 'replaced_by_login',
          actor: 'user',
          userId: ended.userId,
          sessionHandle: ended.handle,
          sessionCount: 1,
          method: ended.method,
          clientAddress: input.client.clientAddress,
        }),
      );
    }

    // A first login, once recorded, is never cleared: a user read with one needs no write.
    const isFirstLogin =
      input.countAsLogin === false || input.user.firstLoginAt !== null
        ? false
        : await repositories.users.markFirstLogin(input.user.userId, now);
    const token = newSessionToken(this.random);
    const expiresAt = input.expiresAt ?? new Date(now.getTime() + this.settings.absoluteTimeoutS * 1000);
    const handle = newSessionHandle(this.random);
    await repositories.sessions.create({
      tokenHash: hashSessionToken(token),
      handle,
      userId: input.user.userId,
      method: input.method,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      clientAddress: input.client.clientAddress,
      userAgent: input.client.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      sso: input.sso ?? null,
    });
    // ASVS 7.1.2: at most SESSIONS_PER_USER_MAX live sessions; the least recently used ones end.
    for (const evicted of await repositories.sessions.evictBeyond(
      input.user.userId,
      this.settings.perUserMax,
    )) {
      await repositories.audit.record(
        auditEvent({
          occurredAt: now,
          event: 'session_revoked',
          reason: 'session_limit',
          actor: 'system',
          userId: evicted.userId,
          username: input.user.username,
          sessionHandle: evicted.handle,
          sessionCount: 1,
          method: evicted.method,
        }),
      );
    }
    const user = isFirstLogin ? { ...input.user, firstLoginAt: now } : input.user;
    return {
      token,
      expiresAt,
      lifetimeS: Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)),
      userId: user.userId,
      sessionHandle: handle,
      ids: idsFor(user),
      profile: buildProfile(user, {
        provideBackendInfo: this.settings.provideBackendInfo,
        passwordMaxAgeDays: this.settings.passwordMaxAgeDays,
        now,
        isFirstLogin,
        includePhoneNumber: true,
      }),
    };
  }
}
