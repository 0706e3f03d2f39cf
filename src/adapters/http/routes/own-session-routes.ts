import type { OwnSession, SessionManagement } from '../../../application/session-management.js';
import { DomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie } from '../cookies.js';
import { readJsonBody } from '../json-body.js';
import { type Route, sessionOf } from '../route.js';
import {
  emptyRequestSchema,
  emptyResponseSchema,
  parseBody,
  parseQuery,
  sessionHandleSchema,
  sessionListQuerySchema,
  sessionListSchema,
  sessionsRevokedSchema,
} from '../schemas.js';

export interface OwnSessionRouteDeps {
  sessions: SessionManagement;
  cookie: CookieSettings;
}

/** Sessions per page of `GET /api/v1/sessions/` when `limit` is not given. */
const DEFAULT_PAGE_SIZE = 50;

function wire(session: OwnSession) {
  return {
    handle: session.handle,
    method: session.method,
    ...(session.provider ? { provider: session.provider } : {}),
    created_at: session.createdAt.toISOString(),
    last_seen_at: session.lastSeenAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    ...(session.clientAddress ? { client_address: session.clientAddress } : {}),
    ...(session.userAgent ? { user_agent: session.userAgent } : {}),
    current: session.current,
  };
}

/**
 * The caller's own sessions (ASVS 7.5.2): list, end one, end all others. Each needs a live
 * session with unexpired credentials (the default gate); ids appear only as opaque handles.
 */
export function ownSessionRoutes(deps: OwnSessionRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/sessions/',
      session: 'live',
      handle: async (request, reply, session) => {
        const query = parseQuery(sessionListQuerySchema, request.query);
        const page = await deps.sessions.list(sessionOf(session), {
          limit: query.limit ?? DEFAULT_PAGE_SIZE,
          cursor: query.cursor,
        });
        reply.json(
          sessionListSchema.parse({
            sessions: page.sessions.map(wire),
            ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
          }),
        );
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/sessions/:handle/',
      session: 'live',
      handle: async (request, reply, session) => {
        const handle = sessionHandleSchema.safeParse(request.params.handle);
        // A handle that cannot exist is answered like one of another user's: not found.
        if (!handle.success) throw new DomainError('NOT_FOUND', 'You have no session with this handle.');
        const ended = await deps.sessions.end(sessionOf(session), handle.data, clientInfo(request));
        if (ended.current) reply.cookie(clearedSessionCookie(deps.cookie));
        reply.json(emptyResponseSchema.parse({}));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/sessions/revoke-others/',
      session: 'live',
      handle: async (request, reply, session) => {
        parseBody(emptyRequestSchema, await readJsonBody(request));
        const revoked = await deps.sessions.endOthers(sessionOf(session), clientInfo(request));
        reply.json(sessionsRevokedSchema.parse({ revoked }));
      },
    },
  ];
}
