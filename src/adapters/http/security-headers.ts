import type { Middleware } from 'koa';

/** API answers are never cached, sniffed or framed. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    await next();
  };
}
