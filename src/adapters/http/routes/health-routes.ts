import type { Store } from '../../../domain/store.port.js';
import type { Route } from '../route.js';

/**
 * How long readiness waits for the stores before it answers "unavailable". A probe gives up after
 * about a second (Kubernetes' default), whatever the stores' own time-outs (REDIS_COMMAND_TIMEOUT_MS
 * defaults to 2 s): a stalled store must read as not ready, not as a probe that timed out.
 */
export const READINESS_TIMEOUT_MS = 800;

/** True when the store answers ready within READINESS_TIMEOUT_MS; false when it fails or is slower. */
async function readyInTime(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([store.isReady().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Liveness (the process answers, whatever the stores do) and readiness (the database and the
 * session store answer in time, and the schema is current); readiness names the session store in use.
 */
export function healthRoutes(
  store: Store,
  sessionStore: 'sql' | 'memory' | 'redis' | 'redis-cluster' | 'module' = 'sql',
): Route[] {
  return [
    { method: 'GET', path: '/healthz', handle: (_request, reply) => reply.json({ status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      handle: async (_request, reply) => {
        const ready = await readyInTime(store);
        reply.status = ready ? 200 : 503;
        if (!ready) reply.header('Retry-After', '5');
        reply.json({ status: ready ? 'ready' : 'unavailable', session_store: sessionStore });
      },
    },
  ];
}
