import Router from '@koa/router';
import type { Store } from '../../../domain/store.port.js';
import type { GatehouseState } from '../state.js';

/**
 * Liveness (the process answers) and readiness (the database and the session store answer, and the
 * schema is current); readiness names the session store in use.
 */
export function healthRoutes(
  store: Store,
  sessionStore: 'sql' | 'redis' | 'redis-cluster' = 'sql',
): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const ready = await store.isReady();
    ctx.status = ready ? 200 : 503;
    if (!ready) ctx.set('Retry-After', '5');
    ctx.body = { status: ready ? 'ready' : 'unavailable', session_store: sessionStore };
  });
  return router;
}
