import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { Logger } from '../logging/logger.js';
import { problemBody, STATUS_BY_CODE } from './problem.js';
import type { GatehouseState } from './state.js';

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

/**
 * Outermost middleware: gives each request an id, logs one line per request, and turns every
 * failure into RFC 9457 problem+json. A DomainError shows its safe message; anything else is a
 * generic 500 whose detail goes to the log only.
 */
export function errorHandler(
  logger: Logger,
  onClientAbort: () => void = () => {},
): Middleware<GatehouseState> {
  return async (ctx, next) => {
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    let aborted = false;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('NOT_FOUND', 'No such resource.');
      }
    } catch (raw) {
      const error = isDomainError(raw) ? raw : null;
      if (!error && isClientAbort(raw, ctx.req)) {
        // The client went away mid-request: nothing to answer, nothing wrong here (issue 14,
        // finding 7). Counted, and told once by the request line below (status 499).
        aborted = true;
        onClientAbort();
      } else if (!error) {
        logger.error({ err: raw, request_id: requestId, path: ctx.path }, 'unhandled error');
      } else if (error.code === 'SERVICE_UNAVAILABLE') {
        logger.warn({ err: error.cause, request_id: requestId }, 'store unavailable');
      }
      const code = error?.code ?? 'INTERNAL_ERROR';
      const detail = error?.message ?? 'An unexpected error occurred.';
      ctx.status = STATUS_BY_CODE[code];
      if (error?.retryAfterS !== undefined) ctx.set('Retry-After', String(error.retryAfterS));
      ctx.body = problemBody(code, detail, requestId, error?.errors);
      ctx.type = 'application/problem+json';
    } finally {
      // Checked first: at the production level (warn) the hot path builds no log record at all.
      if (logger.isLevelEnabled('info'))
        logger.info(
          {
            request_id: requestId,
            method: ctx.method,
            path: ctx.path,
            // 499: nginx's "client closed request", for the log only (nobody reads the answer).
            status: aborted ? 499 : ctx.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ...(aborted ? { event: 'client_aborted' } : {}),
          },
          'request',
        );
    }
  };
}
