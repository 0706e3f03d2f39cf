/**
 * gatehouse-client: the session check for an app that runs beside a Gatehouse service, over its
 * forward-auth endpoint (contract 4a, `GET /api/v1/session/check/`). No dependencies: the global
 * `fetch` (Node 18 and later).
 */

import { GATEHOUSE_USER_LEVELS, type GatehouseUser } from './gatehouse-user.js';
import { CHECK_PATH, IDENTITY_HEADERS, STEP_UP_QUERY } from './wire.js';

export type { GatehouseUser } from './gatehouse-user.js';

export type SessionCheckResult =
  | { status: 'live'; user: GatehouseUser }
  /** No cookie, or a session that is unknown, ended or timed out (the service's 401). */
  | { status: 'none' }
  /** The session's password expired: only a password change is allowed (the service's 403). */
  | { status: 'expired' }
  /**
   * Not logged in with a second factor (the service's 403 MFA_REQUIRED): a session still waiting
   * for its second factor (which never counts as logged in), or, with `requireMfa`, one made with
   * one factor. The user logs in again with a second factor.
   */
  | { status: 'mfa_required' }
  /** With `maxAuthAgeS`: the user authenticated longer ago than that (403 REAUTHENTICATION_REQUIRED). */
  | { status: 'reauthentication_required' }
  /** The service could not answer: unreachable, too slow, or its own 503. Not the user's fault. */
  | { status: 'unavailable' };

export interface SessionCheckOptions {
  /** The Gatehouse service's base URL, e.g. `http://gatehouse:8080`. */
  url: string;
  /** COOKIE_NAME of the service (default `sessionid`). */
  cookieName?: string;
  /** How long one check may take before it counts as unavailable (default 2000 ms). */
  timeoutMs?: number;
  /**
   * Step-up (contract 3b): only a session made with two factors counts as live (the check's
   * `mfa=1`); any other is `mfa_required`. Default: one factor is enough.
   */
  requireMfa?: boolean;
  /**
   * Step-up: only a user who authenticated at most this many seconds ago counts as live (the
   * check's `max_age`); an older authentication is `reauthentication_required`. A whole number,
   * 0 or more. Default: any time in the session's life.
   */
  maxAuthAgeS?: number;
}

export type SessionCheck = (cookieHeader: string | undefined) => Promise<SessionCheckResult>;

/**
 * Only the session cookie's own pairs go to Gatehouse (every value of that name: the service
 * picks the one live session); the app's other cookies are none of its business.
 */
function sessionPairs(cookieHeader: string, cookieName: string): string {
  const prefix = `${cookieName}=`;
  return cookieHeader
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(prefix))
    .join('; ');
}

/**
 * A user level as the service writes it: one of the five levels in plain decimal, nothing else
 * (not `08`, not `+4`, not a level the interface does not have). Anything else is a malformed
 * answer: an application must never be handed a level its own checks were not written for.
 */
function levelFrom(header: string | null): number | null {
  if (header === null || !/^(0|[1-9][0-9]?)$/.test(header)) return null;
  const level = Number(header);
  return GATEHOUSE_USER_LEVELS.includes(level) ? level : null;
}

/**
 * How and when the session was made (contract 3b), or null when the answer has none (a service
 * from before second factors) or a malformed one.
 */
function authFrom(headers: Headers): { authMethods: string[]; authTime: number } | null {
  const methods = headers.get(IDENTITY_HEADERS.authMethods);
  const time = headers.get(IDENTITY_HEADERS.authTime);
  if (methods === null || time === null || !/^\d{1,12}$/.test(time)) return null;
  return {
    authMethods: methods === '' ? [] : methods.split(',').map((method) => decodeURIComponent(method)),
    authTime: Number(time),
  };
}

/**
 * The user of a granting answer, or null when any part of it is missing or malformed: a 2xx that
 * does not say who is not taken as a live session (fail closed).
 */
function userFrom(headers: Headers, stepUp: boolean): GatehouseUser | null {
  const userId = headers.get(IDENTITY_HEADERS.userId);
  const username = headers.get(IDENTITY_HEADERS.username);
  const level = levelFrom(headers.get(IDENTITY_HEADERS.userLevel));
  if (!userId || !username || level === null) return null;
  const tenantId = headers.get(IDENTITY_HEADERS.tenantId);
  const groupId = headers.get(IDENTITY_HEADERS.groupId);
  const hasAuth = headers.has(IDENTITY_HEADERS.authMethods) || headers.has(IDENTITY_HEADERS.authTime);
  try {
    const auth = authFrom(headers);
    // Present but malformed is the service misbehaving; absent is an older service, which is
    // fine unless a step-up was asked (it would have granted without judging it).
    if (!auth && (hasAuth || stepUp)) return null;
    return {
      userId: decodeURIComponent(userId),
      // Percent-encoded by the service when not plain ASCII; plain ASCII decodes to itself.
      username: decodeURIComponent(username),
      userLevel: level,
      ...(tenantId ? { tenantId: decodeURIComponent(tenantId) } : {}),
      ...(groupId ? { groupId: decodeURIComponent(groupId) } : {}),
      ...(auth ?? {}),
    };
  } catch {
    return null;
  }
}

/** The refusal a 403 says, by its problem code (PASSWORD_EXPIRED, and an unreadable one, as before). */
async function forbidden(response: Response): Promise<SessionCheckResult> {
  let code: unknown;
  try {
    code = ((await response.json()) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  if (code === 'MFA_REQUIRED') return { status: 'mfa_required' };
  if (code === 'REAUTHENTICATION_REQUIRED') return { status: 'reauthentication_required' };
  return { status: 'expired' };
}

/** The check's query for the step-up options; a bad `maxAuthAgeS` is refused when the check is made. */
function stepUpQuery(options: SessionCheckOptions): string {
  const { requireMfa, maxAuthAgeS } = options;
  if (maxAuthAgeS !== undefined && !(Number.isSafeInteger(maxAuthAgeS) && maxAuthAgeS >= 0))
    throw new TypeError('gatehouse-client: maxAuthAgeS must be a whole number of seconds, 0 or more');
  const query = new URLSearchParams();
  if (requireMfa) query.set(STEP_UP_QUERY.requireMfa, '1');
  if (maxAuthAgeS !== undefined) query.set(STEP_UP_QUERY.maxAuthAgeS, String(maxAuthAgeS));
  const text = query.toString();
  return text ? `?${text}` : '';
}

export function createSessionCheck(options: SessionCheckOptions): SessionCheck {
  const cookieName = options.cookieName ?? 'sessionid';
  const timeoutMs = options.timeoutMs ?? 2000;
  // Relative to the base URL, which may itself have a path (a service behind a path prefix).
  const query = stepUpQuery(options);
  const endpoint =
    new URL(CHECK_PATH.slice(1), options.url.endsWith('/') ? options.url : `${options.url}/`).href + query;
  return async (cookieHeader) => {
    const cookie = sessionPairs(cookieHeader ?? '', cookieName);
    if (!cookie) return { status: 'none' };
    let response: Response;
    try {
      response = await fetch(endpoint, {
        headers: { cookie, accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // Only a 403's body is read (which refusal it is); every other answer says it by its status.
      if (response.status !== 403) await response.body?.cancel();
    } catch {
      return { status: 'unavailable' };
    }
    if (response.status === 204 || response.status === 200) {
      const user = userFrom(response.headers, query !== '');
      // A grant without a well-formed user is the service misbehaving, not the user's doing.
      return user ? { status: 'live', user } : { status: 'unavailable' };
    }
    if (response.status === 401) return { status: 'none' };
    if (response.status === 403) {
      try {
        return await forbidden(response);
      } catch {
        return { status: 'unavailable' };
      }
    }
    return { status: 'unavailable' };
  };
}
