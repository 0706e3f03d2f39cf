import type { Cluster } from 'ioredis';
import type { ScriptedRedis } from './redis-scripts.js';

/** A pipeline's first failed command, thrown (each command's error is otherwise only in the results). */
function throwPipelineError(
  results: Array<[Error | null, unknown]> | null,
): asserts results is Array<[Error | null, unknown]> {
  if (!results) throw new Error('pipeline discarded');
  for (const [error] of results) if (error) throw error;
}

const REDIRECTED = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * Runs a pipeline whose keyed commands share one slot, with WAIT or INFO after them, so those reach
 * the node that wrote. ioredis follows a cluster's redirections for a pipeline only when every
 * command in it is read-only, which WAIT is not: after a failover such a pipeline would keep
 * getting MOVED from a stale slot map. So a redirection here refreshes the map and runs the
 * pipeline again (its commands are idempotent: a deletion already done finds nothing), a few
 * times, about as long as a failover lasts; then the error is the answer (503).
 */
export async function execOnOneNode(
  redis: ScriptedRedis,
  build: () => { exec(): Promise<Array<[Error | null, unknown]> | null> },
): Promise<Array<[Error | null, unknown]>> {
  for (let attempt = 1; ; attempt++) {
    const results = await build().exec();
    const redirected = results?.find(([error]) => error && REDIRECTED.test(error.message));
    if (!redirected || !redis.isCluster || attempt >= 5) {
      throwPipelineError(results);
      return results;
    }
    await new Promise<void>((resolve) => (redis as Cluster).refreshSlotsCache(() => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}
