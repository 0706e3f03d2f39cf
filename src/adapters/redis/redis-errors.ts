import { DomainError, isDomainError } from '../../domain/shared/domain-error.js';

/** Seconds a client is told to wait while Redis cannot answer (a failover takes 4 to 8 s here). */
export const REDIS_RETRY_AFTER_S = 5;

/**
 * Every Redis failure that reaches a use case means the session store cannot answer now: the
 * connection is down, a command timed out, or a cluster slot has no master during a failover
 * (CLUSTERDOWN, TRYAGAIN, MOVED loops past the client's retries). It becomes
 * SERVICE_UNAVAILABLE (503 with Retry-After), never a 500, and never a 401 for a live session:
 * a 401 makes a portal log its user out. A script's own logic error would be ours, and is the
 * same answer for the client: retry later.
 */
export function translateRedisError(error: unknown): never {
  if (isDomainError(error)) throw error;
  throw new DomainError('SERVICE_UNAVAILABLE', 'The session store is unavailable. Try again shortly.', {
    cause: error,
    retryAfterS: REDIS_RETRY_AFTER_S,
  });
}

/** Runs one Redis call, translating its failure where it enters (architecture convention 4). */
export async function redisCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    translateRedisError(error);
  }
}
