import type {
  AuthenticatedSession,
  SessionAuthenticator,
  SessionDemands,
} from '../../application/session-authenticator.js';
import type { GatehouseUser } from '../../client/gatehouse-user.js';
import { PASSWORD_EXPIRED_DETAIL } from '../../client/wire.js';
import { authTimeSeconds, type SessionAuth, type StepUp } from '../../domain/session/session-auth.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { User } from '../../domain/user/user.js';
import { readCookies } from './cookies.js';
import { type OriginFacts, originRefusal } from './origin-check.js';

export interface SessionCheckSettings {
  cookieName: string;
  /**
   * Spec 5.4: a session whose credentials expired may only change the password or log out.
   * Only those routes pass `true`; every product route keeps the default.
   */
  allowExpiredCredentials?: boolean;
  /** Contract 3b: only the routes that finish a login accept a pending session, of these stages. */
  allowPending?: SessionDemands['allowPending'];
  /** Contract 3b step-up: two factors, a recent authentication (MFA_REQUIRED, REAUTHENTICATION_REQUIRED). */
  stepUp?: SessionDemands['stepUp'];
}

/**
 * The session check and the expired-credentials gate, for Gatehouse's own routes and for the
 * transport guards alike: the live session named by the Cookie header, or NOT_AUTHENTICATED
 * (401) / PASSWORD_EXPIRED (403); a pending session is MFA_REQUIRED (403) unless `allowPending`
 * names its stage, and a step-up not met MFA_REQUIRED / REAUTHENTICATION_REQUIRED (403).
 */
export async function checkSession(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  cookieHeader: string,
  settings: SessionCheckSettings,
): Promise<AuthenticatedSession> {
  const authenticated = await authenticator.authenticate(readCookies(cookieHeader, settings.cookieName), {
    allowPending: settings.allowPending,
    stepUp: settings.stepUp,
  });
  if (authenticated.credentials.isExpired && !settings.allowExpiredCredentials) {
    throw new DomainError('PASSWORD_EXPIRED', PASSWORD_EXPIRED_DETAIL);
  }
  return authenticated;
}

export interface GuardSettings extends SessionCheckSettings {
  /**
   * Origins besides the product app's own whose state-changing requests are accepted (the
   * portal's, when it calls this app's API from a browser). Default: none.
   */
  trustedOrigins?: readonly string[];
}

/**
 * What a guard needs of an embedded Gatehouse: the session check, the cookie name and
 * TRUSTED_ORIGINS. Structural, so the guards depend on these few members, not on the facade: the
 * facade (`createGatehouse`) satisfies it, and so does any object that has them.
 */
export interface SessionGuardSource {
  readonly authenticator: Pick<SessionAuthenticator, 'authenticate'>;
  readonly config: {
    readonly cookie: { readonly name: string };
    readonly trustedOrigins: readonly string[];
  };
}

/**
 * The options of every embedded guard (`gatehouse/koa`, `gatehouse/express`, `gatehouse/fastify`),
 * named as gatehouse-client's: the guards are mounted the same way, `gatehouse` in place of `url`.
 */
export interface GatehouseSessionOptions {
  /** The embedded service (`createGatehouse`): its sessions, cookie name and TRUSTED_ORIGINS. */
  gatehouse: SessionGuardSource;
  /** Origins besides the app's own whose unsafe requests are accepted; default TRUSTED_ORIGINS. */
  trustedOrigins?: readonly string[];
  /** Spec 5.4: only a password-change-like route accepts a session whose password expired. */
  allowExpiredCredentials?: boolean;
  /**
   * Step-up (contract 3b): the session must have been made with two factors, else 403
   * MFA_REQUIRED (the user logs in again with a second factor). Default: one factor is enough.
   */
  requireMfa?: boolean;
  /**
   * Step-up: the user proved who they are at most this many seconds ago (a whole number, 0 or
   * more), else 403 REAUTHENTICATION_REQUIRED. Default: any time in the session's life.
   */
  maxAuthAgeS?: number;
}

/**
 * The step-up a guard's options ask for, or none. A bad `maxAuthAgeS` is refused when the guard
 * is made, not on the first request: a typo must not turn into a guard that demands nothing.
 */
export function stepUpOf(options: { requireMfa?: boolean; maxAuthAgeS?: number }): StepUp | undefined {
  const { requireMfa, maxAuthAgeS } = options;
  if (maxAuthAgeS !== undefined && !(Number.isSafeInteger(maxAuthAgeS) && maxAuthAgeS >= 0))
    throw new TypeError(`gatehouseSession: maxAuthAgeS must be a whole number of seconds, 0 or more`);
  if (!requireMfa && maxAuthAgeS === undefined) return undefined;
  return {
    ...(requireMfa ? { requireMfa: true } : {}),
    ...(maxAuthAgeS !== undefined ? { maxAuthAgeS } : {}),
  };
}

/** The guard settings of an embedded Gatehouse: its cookie name and trusted origins. */
export function guardSettings(options: GatehouseSessionOptions): GuardSettings {
  return {
    cookieName: options.gatehouse.config.cookie.name,
    trustedOrigins: options.trustedOrigins ?? options.gatehouse.config.trustedOrigins,
    allowExpiredCredentials: options.allowExpiredCredentials ?? false,
    stepUp: stepUpOf(options),
  };
}

/**
 * The user object a guard hands to the product's handler (contract 9): who the session belongs
 * to and nothing else, so that no stored field (the password hash above all) can be sent on.
 */
export function guardUser(user: User, auth: Pick<SessionAuth, 'amr' | 'authTime'>): GatehouseUser {
  return {
    userId: user.userId,
    username: user.username,
    userLevel: user.userLevel,
    ...(user.tenantId ? { tenantId: user.tenantId } : {}),
    ...(user.groupId ? { groupId: user.groupId } : {}),
    authMethods: [...auth.amr],
    authTime: authTimeSeconds(auth),
  };
}

/**
 * What the guards for product teams' own routes (Koa, Express, Fastify) check. A
 * cookie-authenticated route is a CSRF target, and a product app has no Gatehouse Origin check in
 * front of it: so for unsafe methods a foreign `Origin` or a cross-site `Sec-Fetch-Site` is refused
 * first (403 ORIGIN_REJECTED), then the session is checked. The answer is the session's user.
 */
export function productGuard(
  authenticator: Pick<SessionAuthenticator, 'authenticate'>,
  settings: GuardSettings,
): (request: OriginFacts) => Promise<GatehouseUser> {
  const trusted = new Set(settings.trustedOrigins ?? []);
  return async (request) => {
    const refusal = originRefusal(request, trusted);
    if (refusal) throw refusal;
    const { user, auth } = await checkSession(authenticator, request.header('cookie'), settings);
    return guardUser(user, auth);
  };
}

/** The product guard of an embedded Gatehouse, as each framework's `gatehouseSession` mounts it. */
export function embeddedGuard(options: GatehouseSessionOptions): ReturnType<typeof productGuard> {
  return productGuard(options.gatehouse.authenticator, guardSettings(options));
}
