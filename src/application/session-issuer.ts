import { idsFor } from '../domain/profile/ids.js';
import { buildProfile } from '../domain/profile/profile.js';
import { type SsoSessionData, sessionKeepUntil } from '../domain/session/session.js';
import type { SessionAuth } from '../domain/session/session-auth.js';
import {
  hashSessionToken,
  isWellFormedSessionToken,
  newSessionHandle,
  newSessionToken,
} from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Random } from '../domain/shared/random.port.js';
import type { User } from '../domain/user/user.js';
import type { ClientInfo, LoginResult } from './login-result.js';
import type { EndingCause, SessionEnder } from './session-ending.js';
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
    end: SessionEnder,
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
      /**
       * How the login was made and whether it is finished (contract 3b). Default: a full session
       * whose `amr` is the method's (`pwd` or `sso`), authenticated now. A pending session gets a
       * marked token (`newSessionToken`), so that nothing can make it full but a new session.
       */
      auth?: Omit<SessionAuth, 'authTime'> & { authTime?: Date };
      /**
       * The session (of the same user) the new one takes the place of: it ends by `cause` as the
       * new one is stored (`SessionEnder.replacedBy`, one operation where the store can). The
       * user's count of sessions stays as it was, so the per-user limit is not asked. When it is
       * gone (a logout, a concurrent completion), NOT_AUTHENTICATED and nothing is issued.
       */
      replaces?: { tokenHash: string; cause: EndingCause };
    },
  ): Promise<LoginResult> {
    const { repositories } = end;
    const now = this.clock.now();
    // Every session the login's cookies name ends, whoever's it is, and the end is audited: a login
    // over another account's session is not silent.
    for (const presented of input.presentedTokens) {
      if (!isWellFormedSessionToken(presented)) continue;
      await end.one(hashSessionToken(presented), {
        reason: 'replaced_by_login',
        clientAddress: input.client.clientAddress,
      });
    }

    // A first login, once recorded, is never cleared: a user read with one needs no write.
    const isFirstLogin =
      input.countAsLogin === false || input.user.firstLoginAt !== null
        ? false
        : await repositories.users.markFirstLogin(input.user.userId, now);
    const auth: SessionAuth = {
      stage: input.auth?.stage ?? 'full',
      amr: input.auth?.amr ?? [input.method === 'sso' ? 'sso' : 'pwd'],
      authTime: input.auth?.authTime ?? now,
    };
    const token = newSessionToken(this.random, auth.stage !== 'full');
    const expiresAt = input.expiresAt ?? new Date(now.getTime() + this.settings.absoluteTimeoutS * 1000);
    const handle = newSessionHandle(this.random);
    const session = {
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
      auth,
    };
    const keepUntil = sessionKeepUntil(session, this.settings.idleTimeoutS);
    if (input.replaces) {
      const { tokenHash, cause } = input.replaces;
      if (!(await end.replacedBy(tokenHash, session, keepUntil, cause))) {
        throw new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
      }
    } else {
      await repositories.sessions.create(session, keepUntil);
      // ASVS 7.1.2: at most SESSIONS_PER_USER_MAX live sessions; the least recently used ones end.
      await end.beyond(input.user, this.settings.perUserMax, { reason: 'session_limit' });
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
