import { z } from 'zod';
import type { OwnSession, SessionManagement } from '../../../application/session-management.js';
import { DomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie } from '../cookies.js';
import { defineRoute, type Route } from '../route.js';
import {
  emptyRequestSchema,
  emptyResponseSchema,
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
    defineRoute({
      method: 'GET',
      path: '/api/v1/sessions/',
      session: 'live',
      openapi: {
        operationId: 'listSessions',
        tag: 'session',
        summary: 'List your sessions',
        description:
          'Your live sessions, newest first, the one this request came with marked `current`, one page ' +
          'at a time: `limit` sessions (default 50), and `next_cursor` while more remain, to pass as ' +
          '`cursor`. Sessions are named by opaque handles, never by their cookie value. A user has at ' +
          'most `SESSIONS_PER_USER_MAX` live sessions (default 100): a login beyond it ends the least ' +
          'recently used one.',
        // As the client sends them (strings); sessionListQuerySchema reads them.
        queryParameters: [
          {
            name: 'limit',
            description: 'Sessions per page, 1 to 100 (default 50).',
            schema: z.string().regex(/^\d{1,3}$/),
          },
          {
            name: 'cursor',
            description: 'The `next_cursor` of the previous page.',
            schema: z.string().max(128),
          },
        ],
        responses: [{ status: 200, description: 'Your sessions.', schema: sessionListSchema }],
        errors: ['INVALID_REQUEST', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, session }) => {
        const query = parseQuery(sessionListQuerySchema, request.query);
        const page = await deps.sessions.list(session, {
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
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/sessions/:handle/',
      session: 'live',
      openapi: {
        operationId: 'endSession',
        tag: 'session',
        summary: 'End one of your sessions',
        description:
          'Ends the session with this handle at once, on every instance. A handle that is not one ' +
          "of your sessions (another user's, or none) is answered `404`. Ending the current session " +
          'also clears its cookie.',
        pathParameters: [
          {
            name: 'handle',
            description: 'The handle from GET /api/v1/sessions/.',
            schema: sessionHandleSchema,
          },
        ],
        responses: [{ status: 200, description: 'Session ended.', schema: emptyResponseSchema }],
        errors: ['NOT_FOUND', 'SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, session }) => {
        const handle = sessionHandleSchema.safeParse(request.params.handle);
        // A handle that cannot exist is answered like one of another user's: not found.
        if (!handle.success) throw new DomainError('NOT_FOUND', 'You have no session with this handle.');
        const ended = await deps.sessions.end(session, handle.data, clientInfo(request));
        if (ended.current) reply.cookie(clearedSessionCookie(deps.cookie));
        reply.json(emptyResponseSchema.parse({}));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/sessions/revoke-others/',
      session: 'live',
      request: { schema: emptyRequestSchema, optional: true },
      openapi: {
        operationId: 'revokeOtherSessions',
        tag: 'session',
        summary: 'End all your other sessions',
        description: 'Ends every session of yours except the one this request came with; answers how many.',
        responses: [{ status: 200, description: 'Other sessions ended.', schema: sessionsRevokedSchema }],
        errors: ['SERVICE_UNAVAILABLE'],
      },
      handle: async ({ request, reply, session, body }) => {
        await body();
        const revoked = await deps.sessions.endOthers(session, clientInfo(request));
        reply.json(sessionsRevokedSchema.parse({ revoked }));
      },
    }),
  ];
}
