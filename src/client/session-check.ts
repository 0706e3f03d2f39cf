/**
 * gatehouse-client: the session check for an app that runs beside a Gatehouse service, over its
 * forward-auth endpoint (contract 4a, `GET /api/v1/session/check/`). No dependencies: the global
 * `fetch` (Node 18 and later).
 */

import { GATEHOUSE_USER_LEVELS, type GatehouseUser } from './gatehouse-user.js';
import { CHECK_PATH, IDENTITY_HEADERS } from './wire.js';

export type { GatehouseUser } from './gatehouse-user.js';

export type SessionCheckResult =
  | { status: 'live'; user: GatehouseUser }
  /** No cookie, or a session that is unknown, ended or timed out (the service's 401). */
  | { status: 'none' }
  /** The session's password expired: only a password change is allowed (the service's 403). */
  | { status: 'expired' }
  /** The service could not answer: unreachable, too slow, or its own 503. Not the user's fault. */
  | { status: 'unavailable' };

export interface SessionCheckOptions {
  /** The Gatehouse service's base URL, e.g. `http://gatehouse:8080`. */
  url: string;
  /** COOKIE_NAME of the service (default `sessionid`). */
  cookieName?: string;
  /** How long one check may take before it counts as unavailable (default 2000 ms). */
  timeoutMs?: number;
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
 * The user of a granting answer, or null when any part of it is missing or malformed: a 2xx that
 * does not say who is not taken as a live session (fail closed).
 */
function userFrom(headers: Headers): GatehouseUser | null {
  const userId = headers.get(IDENTITY_HEADERS.userId);
  const username = headers.get(IDENTITY_HEADERS.username);
  const level = levelFrom(headers.get(IDENTITY_HEADERS.userLevel));
  if (!userId || !username || level === null) return null;
  const tenantId = headers.get(IDENTITY_HEADERS.tenantId);
  const groupId = headers.get(IDENTITY_HEADERS.groupId);
  try {
    return {
      userId: decodeURIComponent(userId),
      // Percent-encoded by the service when not plain ASCII; plain ASCII decodes to itself.
      username: decodeURIComponent(username),
      userLevel: level,
      ...(tenantId ? { tenantId: decodeURIComponent(tenantId) } : {}),
      ...(groupId ? { groupId: decodeURIComponent(groupId) } : {}),
    };
  } catch {
    return null;
  }
}

export function createSessionCheck(options: SessionCheckOptions): SessionCheck {
  const cookieName = options.cookieName ?? 'sessionid';
  const timeoutMs = options.timeoutMs ?? 2000;
  // Relative to the base URL, which may itself have a path (a service behind a path prefix).
  const endpoint = new URL(CHECK_PATH.slice(1), options.url.endsWith('/') ? options.url : `${options.url}/`)
    .href;
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
      await response.body?.cancel();
    } catch {
      return { status: 'unavailable' };
    }
    if (response.status === 204 || response.status === 200) {
      const user = userFrom(response.headers);
      // A grant without a well-formed user is the service misbehaving, not the user's doing.
      return user ? { status: 'live', user } : { status: 'unavailable' };
    }
    if (response.status === 401) return { status: 'none' };
    if (response.status === 403) return { status: 'expired' };
    return { status: 'unavailable' };
  };
}
