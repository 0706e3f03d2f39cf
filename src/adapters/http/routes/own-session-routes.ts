import Router from '@koa/router';
import type { SessionAuthenticator } from '../../../application/session-authenticator.js';
import type { OwnSession, SessionManagement } from '../../../application/session-management.js';
import { DomainError } from '../../../domain/shared/domain-error.js';
import { clientInfo } from '../client-info.js';
import { type CookieSettings, clearedSessionCookie } from '../cookies.js';
import { readJsonBody } from '../json-body.js';
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
import { sessionGuard } from '../session-guard.js';
import type { GatehouseState } from '../state.js';

export interface OwnSessionRouteDeps {
  sessions: SessionManagement;
  authenticator: SessionAuthenticator;
  cookie: CookieSettings;
}

/** Sessions per page of `GET /api/v1/sessions/` when `limit` is not given. */
const DEFAULT_PAGE_SIZE = 50;

function wire(session: OwnSession) {
  return {
    handle: session.handle,
    method: session.method,
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
export function ownSessionRoutes(deps: OwnSessionRouteDeps): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  const guard = sessionGuard(deps.authenticator, { cookieName: deps.cookie.name });

  router.get('/api/v1/sessions/', guard, async (ctx) => {
    const query = parseQuery(sessionListQuerySchema, ctx.query);
    const page = await deps.sessions.list(ctx.state.gatehouse!, {
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
      cursor: query.cursor,
    });
    ctx.body = sessionListSchema.parse({
      sessions: page.sessions.map(wire),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    });
  });

  router.delete('/api/v1/sessions/:handle/', guard, async (ctx) => {
    const handle = sessionHandleSchema.safeParse(ctx.params.handle);
    // A handle that cannot exist is answered like one of another user's: not found.
    if (!handle.success) throw new DomainError('NOT_FOUND', 'You have no session with this handle.');
    const ended = await deps.sessions.end(ctx.state.gatehouse!, handle.data, clientInfo(ctx));
    if (ended.current) ctx.append('Set-Cookie', clearedSessionCookie(deps.cookie));
    ctx.body = emptyResponseSchema.parse({});
  });

  router.post('/api/v1/sessions/revoke-others/', guard, async (ctx) => {
    parseBody(emptyRequestSchema, await readJsonBody(ctx));
    const revoked = await deps.sessions.endOthers(ctx.state.gatehouse!, clientInfo(ctx));
    ctx.body = sessionsRevokedSchema.parse({ revoked });
  });

  return router;
}
