import type { Store } from '../../../domain/store.port.js';
import { defineRoute, type Route } from '../route.js';
import { healthResponseSchema, readinessResponseSchema } from '../schemas.js';

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
    defineRoute({
      method: 'GET',
      path: '/healthz',
      session: 'none',
      openapi: {
        operationId: 'liveness',
        tag: 'operations',
        summary: 'Liveness',
        responses: [{ status: 200, description: 'The process answers.', schema: healthResponseSchema }],
        errors: [],
      },
      handle: ({ reply }) => reply.json({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      session: 'none',
      openapi: {
        operationId: 'readiness',
        tag: 'operations',
        summary: 'Readiness',
        description: 'Ready when the store answers and every migration is applied.',
        responses: [
          { status: 200, description: 'Ready.', schema: readinessResponseSchema },
          {
            status: 503,
            description: 'Not ready (store unreachable or migrations pending).',
            schema: readinessResponseSchema,
            retryAfter: true,
          },
        ],
        errors: [],
      },
      handle: async ({ reply }) => {
        const ready = await readyInTime(store);
        reply.status = ready ? 200 : 503;
        if (!ready) reply.header('Retry-After', '5');
        reply.json({ status: ready ? 'ready' : 'unavailable', session_store: sessionStore });
      },
    }),
  ];
}
