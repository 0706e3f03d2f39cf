import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';
import type { Logger } from '../logging/logger.js';
import { problemBody, STATUS_BY_CODE } from './problem.js';
import type { GatehouseState } from './state.js';

/**
 * Outermost middleware: gives each request an id, logs one line per request, and turns every
 * failure into RFC 9457 problem+json. A DomainError shows its safe message; anything else is a
 * generic 500 whose detail goes to the log only.
 */
export function errorHandler(logger: Logger): Middleware<GatehouseState> {
  return async (ctx, next) => {
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new DomainError('NOT_FOUND', 'No such resource.');
      }
    } catch (raw) {
      const error = isDomainError(raw) ? raw : null;
      if (!error) {
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
            status: ctx.status,
            ms: Math.round((performance.now() - started) * 10) / 10,
          },
          'request',
        );
    }
  };
}
