import Router from '@koa/router';
import Koa from 'koa';
import { DomainError } from '../../domain/shared/domain-error.js';
import type { Logger } from '../logging/logger.js';
import { errorHandler } from './error-handler.js';
import { normalizeTrailingSlash } from './normalize-path.js';
import { originCheck } from './origin-check.js';
import { securityHeaders } from './security-headers.js';
import type { GatehouseState } from './state.js';

export interface HttpAppOptions {
  logger: Logger;
  trustedOrigins: readonly string[];
  /** Proxies in front whose `X-Forwarded-*` headers are believed (0: none, the socket's address). */
  trustedProxyHops: number;
  routers: Router<GatehouseState>[];
  /** Told of each request whose client went away mid-request (a metric counts them). */
  onClientAbort?: () => void;
}

/** The Koa application: cross-cutting middleware, then each router. */
export function createHttpApp(options: HttpAppOptions): Koa<GatehouseState> {
  // Behind N proxies, the client address is the Nth `X-Forwarded-For` entry from the right (Koa
  // keeps the last N, and `ctx.ip` is the first of those): each proxy appended the address it
  // saw, and whatever stands further left was sent by the client, so it proves nothing.
  const hops = options.trustedProxyHops;
  const app = new Koa<GatehouseState>({ proxy: hops > 0, maxIpsCount: Math.max(hops, 1) });
  // Errors are answered by errorHandler; this only silences Koa's default stderr printing.
  app.silent = true;
  app.use(errorHandler(options.logger, options.onClientAbort));
  app.use(securityHeaders());
  app.use(normalizeTrailingSlash());
  app.use(originCheck(options.trustedOrigins));
  const root = new Router<GatehouseState>();
  for (const router of options.routers) root.use(router.routes());
  // allowedMethods is not in `throw` mode: only then does it set `Allow`, which a 405 must carry
  // (RFC 9110); its bare 405/501 becomes problem+json here.
  app.use(async (ctx, next) => {
    await next();
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      throw new DomainError('METHOD_NOT_ALLOWED', 'This method is not allowed here.');
    }
  });
  app.use(root.routes());
  app.use(root.allowedMethods());
  return app;
}
