import Router from '@koa/router';
import type { Store } from '../../../domain/store.port.js';
import type { GatehouseState } from '../state.js';

/** Liveness (the process answers) and readiness (the store answers and its schema is current). */
export function healthRoutes(store: Store): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const ready = await store.isReady();
    ctx.status = ready ? 200 : 503;
    if (!ready) ctx.set('Retry-After', '5');
    ctx.body = { status: ready ? 'ready' : 'unavailable' };
  });
  return router;
}
