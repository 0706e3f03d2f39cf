import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SessionAuthenticator } from '../../application/session-authenticator.js';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { Logger } from '../logging/logger.js';
import type { HttpRequest } from './exchange.js';
import { Reply } from './exchange.js';
import { originRefusal } from './origin-check.js';
import { problemBody, STATUS_BY_CODE } from './problem.js';
import {
  allowedMethods,
  catchAllRoute,
  isGuarded,
  type MatchedRoute,
  pathMatches,
  type Route,
} from './route.js';
import { sessionForRule } from './route-session.js';
import { SECURITY_HEADERS } from './security-headers.js';

/** Node's errors for a request stream whose client closed the connection before the end. */
const ABORT_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

function isClientAbort(raw: unknown, request: IncomingMessage): boolean {
  if (!(raw instanceof Error)) return false;
  const code = (raw as NodeJS.ErrnoException).code;
  return (request.destroyed || request.readableAborted) && (code === undefined || ABORT_CODES.has(code));
}

export interface HttpCoreOptions {
  logger: Logger;
  trustedOrigins: readonly string[];
  routes: readonly Route[];
  authenticator: Pick<SessionAuthenticator, 'authenticate'>;
  cookieName: string;
  /** Told of each request whose client went away mid-request (a metric counts them). */
  onClientAbort?: () => void;
}

/**
 * What the transport found for a request: a route of the table, a stand-in for a failure its
 * framework met before routing (route.ts: MatchedRoute), or none.
 */
export type Matched = { route: MatchedRoute } | { route: null };

/**
 * Everything about an HTTP exchange that is not the framework's: the request id, the security
 * headers, the Origin check, 404 and 405 (with Allow), the session guard of session routes, RFC
 * 9457 problems for every failure, and the one log line per request. Koa and Fastify each route
 * a request to its Route and hand it here; what comes back is written as it is.
 */
export class HttpCore {
  private readonly trusted: ReadonlySet<string>;
  private readonly table: ReadonlySet<MatchedRoute>;

  constructor(private readonly options: HttpCoreOptions) {
    this.trusted = new Set(options.trustedOrigins);
    this.table = new Set(options.routes);
  }

  get routes(): readonly Route[] {
    return this.options.routes;
  }

  async answer(request: HttpRequest, matched: Matched): Promise<Reply> {
    const requestId = randomUUID();
    const reply = new Reply();
    reply.header('X-Request-Id', requestId);
    for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
    const started = performance.now();
    let aborted = false;
    try {
      await this.run(request, matched, reply);
    } catch (raw) {
      const error = isDomainError(raw) ? raw : null;
      const { logger } = this.options;
      if (!error && isClientAbort(raw, request.raw)) {
        // The client went away mid-request: nothing to answer, nothing wrong here. Counted, and
        // told once by the request line below (status 499).
        aborted = true;
        this.options.onClientAbort?.();
      } else if (!error) {
        logger.error({ err: raw, request_id: requestId, path: request.path }, 'unhandled error');
      } else if (error.code === 'SERVICE_UNAVAILABLE') {
        logger.warn({ err: error.cause, request_id: requestId }, 'store unavailable');
      }
      writeProblem(reply, raw, requestId);
    } finally {
      // Checked first: at the production level (warn) the hot path builds no log record at all.
      if (this.options.logger.isLevelEnabled('info'))
        this.options.logger.info(
          {
            request_id: requestId,
            method: request.method,
            path: request.path,
            // 499: nginx's "client closed request", for the log only (nobody reads the answer).
            status: aborted ? 499 : reply.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ...(aborted ? { event: 'client_aborted' } : {}),
          },
          'request',
        );
    }
    return reply;
  }

  /**
   * The route the framework's router found, if it holds under the one routing rule (route.ts). A
   * route outside the table stands for a failure the framework met before routing.
   */
  private routed(matched: Matched, path: string): MatchedRoute | null {
    const { route } = matched;
    if (!route || !this.table.has(route)) return route;
    return pathMatches(route.path, path) ? route : null;
  }

  private async run(request: HttpRequest, matched: Matched, reply: Reply): Promise<void> {
    const route = this.routed(matched, request.path) ?? catchAllRoute(this.options.routes, request.path);
    const refusal = originRefusal(route?.originOf?.(request) ?? request, this.trusted);
    if (refusal) throw refusal;
    if (!route) {
      const allowed = allowedMethods(this.options.routes, request.path);
      if (allowed.length === 0) throw new DomainError('NOT_FOUND', 'No such resource.');
      reply.header('Allow', [...allowed, 'OPTIONS'].join(', '));
      if (request.method === 'OPTIONS') {
        reply.status = 204;
        return;
      }
      throw new DomainError('METHOD_NOT_ALLOWED', 'This method is not allowed here.');
    }
    const session = isGuarded(route.session)
      ? await sessionForRule(
          this.options.authenticator,
          request.header('cookie'),
          this.options.cookieName,
          route.session,
          route.stepUpOf?.(request),
        )
      : null;
    await route.handle(request, reply, session);
  }
}

/** A failure as RFC 9457 problem+json on `reply`; anything not a DomainError is a bare 500. */
export function writeProblem(reply: Reply, raw: unknown, requestId: string): void {
  const error = isDomainError(raw) ? raw : null;
  const code = error?.code ?? 'INTERNAL_ERROR';
  reply.status = STATUS_BY_CODE[code];
  // Whole seconds (RFC 9110 10.2.3), whichever copy of DomainError gave them.
  if (error?.retryAfterS !== undefined) reply.setHeader('Retry-After', String(Math.ceil(error.retryAfterS)));
  // A body over the limit was not read to its end: the connection is closed after the answer.
  if (code === 'PAYLOAD_TOO_LARGE') reply.setHeader('Connection', 'close');
  reply.text(
    'application/problem+json; charset=utf-8',
    JSON.stringify(
      problemBody(code, error?.message ?? 'An unexpected error occurred.', requestId, error?.errors),
    ),
  );
}
