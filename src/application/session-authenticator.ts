import { mfaRequired } from '../domain/mfa/mfa-errors.js';
import { type CredentialExpiryStatus, credentialExpiry } from '../domain/profile/credential-expiry.js';
import { type Ids, idsFor } from '../domain/profile/ids.js';
import { buildProfile, type Profile } from '../domain/profile/profile.js';
import type { SessionWithUser } from '../domain/session/session.js';
import {
  isLastSeenDue,
  type SessionRecord,
  type SessionTimeout,
  sessionKeepUntil,
  sessionTimedOut,
} from '../domain/session/session.js';
import {
  authTimeSeconds,
  type SessionAuth,
  type SessionStage,
  type StepUp,
  sessionAuthOf,
  stepUpRefusal,
} from '../domain/session/session-auth.js';
import {
  hashSessionToken,
  isPendingSessionToken,
  isWellFormedSessionToken,
} from '../domain/session/session-token.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { DomainError } from '../domain/shared/domain-error.js';
import type { Store } from '../domain/store.port.js';
import type { User } from '../domain/user/user.js';
import { ignoredSessionChecks, type LoginEvents, type SessionCheckObserver } from './login-events.js';
import type { SessionEnding } from './session-ending.js';
import type { SessionSettings } from './session-settings.js';

export interface AuthenticatedSession {
  session: SessionRecord;
  user: User;
  tokenHash: string;
  credentials: CredentialExpiryStatus;
  /** How and when it was made, and whether it is pending (fails closed: `sessionAuthOf`). */
  auth: SessionAuth;
}

/** What a caller asks of a session beyond being live (contract 3b). */
export interface SessionDemands {
  /**
   * The pending sessions it accepts besides full ones; none unless it says so. Only the routes
   * that finish a login name the stages they serve.
   */
  allowPending?: readonly Exclude<SessionStage, 'full'>[] | undefined;
  /** Step-up: two factors (403 MFA_REQUIRED), a recent authentication (403 REAUTHENTICATION_REQUIRED). */
  stepUp?: StepUp | undefined;
}

interface Live {
  live: SessionWithUser;
  tokenHash: string;
  pendingToken: boolean;
}

export interface SessionView {
  ids: Ids;
  profile: Profile;
  /** How and when the session was made (contract 3b): `amr`, and `auth_time` in Unix seconds. */
  session: { amr: string[]; auth_time: number };
}

/**
 * Whether an SSO session of a provider may still be used: the provider is configured and enabled,
 * was so when the session was made (not since re-enabled or re-added), and still admits the user.
 */
export interface ProviderStatus {
  isServed(providerId: string, sessionCreatedAt: Date, user: User): boolean;
}

/** Where no provider can be offboarded (no registry): every provider's sessions stay usable. */
export const everyProviderServed: ProviderStatus = { isServed: () => true };

function notAuthenticated(): DomainError {
  return new DomainError('NOT_AUTHENTICATED', 'No valid session. Log in first.');
}

/**
 * The session check every authenticated request pays (the hot path): one indexed lookup, no write
 * unless last-seen is due. Revocation is honoured at once because nothing is cached.
 */
export class SessionAuthenticator {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: SessionSettings,
    private readonly ending: SessionEnding,
    private readonly checks: SessionCheckObserver = ignoredSessionChecks,
    private readonly events?: Pick<LoginEvents, 'sessionCookiesAmbiguous'>,
    private readonly providers: ProviderStatus = everyProviderServed,
  ) {}

  /**
   * `presented`: the session cookie's value, or all its values when the request carries several.
   * The one that is a live session is used, whatever its place; junk or dead values beside it do no
   * harm; when more than one is live, none is used (401) and a warning says how many: a cookie
   * planted from a sibling domain must not pick the account.
   */
  async authenticate(
    presented: string | readonly string[] | null | undefined,
    demands: SessionDemands = {},
  ): Promise<AuthenticatedSession> {
    const values =
      presented === null || presented === undefined
        ? []
        : typeof presented === 'string'
          ? [presented]
          : presented;
    if (values.length === 0 || (values.length === 1 && !values[0])) {
      this.checks.sessionChecked('missing');
      throw notAuthenticated();
    }
    const tokens = values.filter((value) => isWellFormedSessionToken(value));
    const inspected = await Promise.all(tokens.map((token) => this.inspect(token)));
    const live = inspected.filter((found): found is Live => 'live' in found);
    if (live.length !== 1) {
      if (live.length > 1)
        this.events?.sessionCookiesAmbiguous?.({ live: live.length, presented: values.length });
      this.checks.sessionChecked(
        inspected.some((found) => 'expired' in found) && live.length === 0 ? 'expired' : 'invalid',
      );
      throw notAuthenticated();
    }
    const { live: found, tokenHash, pendingToken } = live[0]!;
    const auth = sessionAuthOf(found.session, pendingToken);
    // A pending session never counts as logged in: every caller refuses it but the few that
    // finish a login (contract 3b), and it is not touched (its short life is not extended).
    if (auth.stage !== 'full' && !demands.allowPending?.includes(auth.stage)) {
      this.checks.sessionChecked('mfa_pending');
      throw mfaRequired();
    }
    const now = this.clock.now();
    const refusal = demands.stepUp ? stepUpRefusal(auth, demands.stepUp, now) : null;
    if (refusal === 'MFA_REQUIRED') throw mfaRequired();
    if (refusal) throw new DomainError(refusal, 'Authenticate again to continue.');
    if (isLastSeenDue(found.session, now)) {
      const keepUntil = sessionKeepUntil({ ...found.session, lastSeenAt: now }, this.settings.idleTimeoutS);
      await this.store.sessions.touch(tokenHash, now, keepUntil);
    }
    const credentials = credentialExpiry(found.user, this.settings.passwordMaxAgeDays, now);
    this.checks.sessionChecked(credentials.isExpired ? 'password_expired' : 'ok');
    return { session: found.session, user: found.user, tokenHash, credentials, auth };
  }

  /**
   * The one live session among the presented values (for a logout), or null: none, or several.
   * Ends what it finds dead on the way, as `authenticate` does.
   */
  async liveToken(presented: readonly string[]): Promise<string | null> {
    const tokens = presented.filter((value) => isWellFormedSessionToken(value));
    if (tokens.length <= 1) return tokens[0] ?? null;
    const inspected = await Promise.all(
      tokens.map(async (token) => ({ token, found: await this.inspect(token) })),
    );
    const live = inspected.filter(({ found }) => 'live' in found);
    return live.length === 1 ? live[0]!.token : null;
  }

  /** One presented token: a live session, or why not (a disabled user's or timed-out one ends here). */
  private async inspect(token: string): Promise<Live | { invalid: true } | { expired: true }> {
    const pendingToken = isPendingSessionToken(token);
    const tokenHash = hashSessionToken(token);
    const found = await this.store.findSessionWithUser(tokenHash);
    if (!found) return { invalid: true };
    if (found.user.disabled) {
      // Disabling the account ended its sessions already; this one raced it (created meanwhile).
      await this.ending.one(tokenHash, { reason: 'user_disabled', actor: 'system', user: found.user });
      return { invalid: true };
    }
    const { session, user } = found;
    if (session.sso && !this.providers.isServed(session.sso.provider, session.createdAt, user)) {
      // Offboarding ended this provider's sessions in the store; this is the fail-closed backstop
      // for one it missed (made while the disable or a narrowing ran, or a store that lost the
      // deletion): it ends wherever it is presented, on every instance once its directory has the
      // change, and one made before the provider's current enable or registration never comes back.
      await this.ending.one(tokenHash, { reason: 'provider_disabled', user: found.user });
      return { invalid: true };
    }
    const now = this.clock.now();
    const timedOut = sessionTimedOut(found.session, this.settings, now);
    if (timedOut) {
      await this.endTimedOut(found.user, tokenHash, timedOut);
      return { expired: true };
    }
    return { live: found, tokenHash, pendingToken };
  }

  /**
   * A session presented after its time-out ends here, with its audit record (one only, should two
   * requests race: the delete finds it once). Sessions never presented again are reclaimed
   * silently: by the store's own expiry, or its purge.
   */
  private async endTimedOut(user: User, tokenHash: string, reason: SessionTimeout): Promise<void> {
    await this.ending.one(tokenHash, { reason, user });
  }

  /** `GET /api/v1/session/`: the spec's body without `phoneNumber` (login answer only). */
  view(authenticated: AuthenticatedSession): SessionView {
    const { user, session, auth } = authenticated;
    return {
      session: { amr: [...auth.amr], auth_time: authTimeSeconds(auth) },
      ids: idsFor(user),
      profile: buildProfile(user, {
        provideBackendInfo: this.settings.provideBackendInfo,
        passwordMaxAgeDays: this.settings.passwordMaxAgeDays,
        now: this.clock.now(),
        // The session that recorded the user's first login keeps saying so.
        isFirstLogin:
          user.firstLoginAt !== null && user.firstLoginAt.getTime() === session.createdAt.getTime(),
        includePhoneNumber: false,
      }),
    };
  }
}
