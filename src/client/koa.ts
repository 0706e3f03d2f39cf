/**
 * gatehouse-client/koa: `app.use(gatehouseSession({ url }))`. A live session puts its user on
 * `ctx.state.gatehouse` and goes on; otherwise the request is answered 401, 403 or 503
 * (problem+json), and an unsafe request from a foreign origin 403 ORIGIN_REJECTED. Typed
 * structurally: Koa is an optional peer, never imported.
 */
import { createGuard, type GatehouseSessionOptions } from './guard.js';
import type { GatehouseUser } from './session-check.js';

export type { GatehouseSessionOptions } from './guard.js';
export type { GatehouseUser } from './session-check.js';

/** What the middleware uses of Koa's context. */
interface KoaContext {
  method: string;
  get(field: string): string;
  /** Koa's own view (its `proxy` setting decides whether X-Forwarded-* count). */
  protocol: string;
  host: string;
  state: { gatehouse?: GatehouseUser };
  status: number;
  body: unknown;
  set(headers: Record<string, string>): void;
}

export function gatehouseSession(
  options: GatehouseSessionOptions,
): (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void> {
  const guard = createGuard(options);
  return async (ctx, next) => {
    const outcome = await guard({
      method: ctx.method,
      header: (name) => ctx.get(name),
      ownOrigin: `${ctx.protocol}://${ctx.host}`,
      cookie: ctx.get('cookie') || undefined,
    });
    if (!outcome.refusal) {
      ctx.state.gatehouse = outcome.user;
      await next();
      return;
    }
    ctx.status = outcome.refusal.status;
    ctx.set(outcome.refusal.headers);
    ctx.body = outcome.refusal.body;
  };
}
