import type { Store } from '../../../domain/store.port.js';
import type { Route } from '../route.js';

/**
 * Liveness (the process answers) and readiness (the database and the session store answer, and the
 * schema is current); readiness names the session store in use.
 */
export function healthRoutes(
  store: Store,
  sessionStore: 'sql' | 'memory' | 'redis' | 'redis-cluster' = 'sql',
): Route[] {
  return [
    { method: 'GET', path: '/healthz', handle: (_request, reply) => reply.json({ status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async (_request, reply) => {
        const ready = await store.isReady();
        reply.status = ready ? 200 : 503;
        if (!ready) reply.header('Retry-After', '5');
        reply.json({ status: ready ? 'ready' : 'unavailable', session_store: sessionStore });
      },
    },
  ];
}
