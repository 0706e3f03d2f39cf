import type { AuthenticatedSession } from '../../../application/session-authenticator.js';
import type { Reply } from '../exchange.js';
import { type Route, sessionOf } from '../route.js';

/** A header value must be visible ASCII; anything else in a username is percent-encoded (contract 4a). */
function headerSafe(value: string): string {
  return /^[\x21-\x7e]*$/.test(value) && !value.includes('%') ? value : encodeURIComponent(value);
}

/** The identity headers of contract 4a, for a gateway to pass on to the application. */
export function identityHeaders(reply: Reply, { user }: AuthenticatedSession): void {
  reply.header('Gatehouse-User-Id', headerSafe(user.userId));
  reply.header('Gatehouse-Username', headerSafe(user.username));
  reply.header('Gatehouse-User-Level', String(user.userLevel));
  if (user.tenantId) reply.header('Gatehouse-Tenant-Id', headerSafe(user.tenantId));
  if (user.groupId) reply.header('Gatehouse-Group-Id', headerSafe(user.groupId));
}

/**
 * Forward auth (contract 4a): a gateway asks whether the request it is about to pass on carries a
 * live session. The session guard of the route answers 401 / 403 PASSWORD_EXPIRED / 503 as
 * everywhere; a live session is 204 with who it is in headers. No cookie is ever set or cleared.
 */
export function forwardAuthRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/session/check/',
      session: 'live',
      handle: (_request, reply, session) => {
        reply.status = 204;
        identityHeaders(reply, sessionOf(session));
      },
    },
  ];
}
