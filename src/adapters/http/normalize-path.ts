import type { Middleware } from 'koa';

/** Contract 1: `/api/v1/login` answers the same as the spec's `/api/v1/login/`. */
export function normalizeTrailingSlash(): Middleware {
  return async (ctx, next) => {
    if (ctx.path.startsWith('/api/') && !ctx.path.endsWith('/') && !ctx.path.endsWith('.json')) {
      ctx.path = `${ctx.path}/`;
    }
    await next();
  };
}
