/**
 * gatehouse-client/koa: `app.use(gatehouseSession({ url }))`. A live session puts its user on
 * `ctx.state.gatehouse` and goes on; otherwise the request is answered 401, 403 or 503
 * (problem+json). Typed structurally: Koa is an optional peer, never imported.
 */
import { refusalFor } from './problem.js';
import { createSessionCheck, type GatehouseUser, type SessionCheckOptions } from './session-check.js';

export type { GatehouseUser, SessionCheckOptions } from './session-check.js';

interface KoaContext {
  get(field: string): string;
  state: { gatehouse?: GatehouseUser } & Record<string, unknown>;
  status: number;
  body: unknown;
  set(headers: Record<string, string>): void;
}

export function gatehouseSession(
  options: SessionCheckOptions,
): (ctx: KoaContext, next: () => Promise<unknown>) => Promise<void> {
  const check = createSessionCheck(options);
  return async (ctx, next) => {
    const result = await check(ctx.get('cookie') || undefined);
    if (result.status === 'live') {
      ctx.state.gatehouse = result.user;
      await next();
      return;
    }
    const refusal = refusalFor(result);
    ctx.status = refusal.status;
    ctx.set(refusal.headers);
    ctx.body = refusal.body;
  };
}
