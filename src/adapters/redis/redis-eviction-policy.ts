import type { RedisClient } from './redis-connection.js';

/** Start-up stops: a Redis node would evict keys under memory pressure. */
export class RedisEvictionPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisEvictionPolicyError';
  }
}

/** The nodes to ask: every node of a cluster (a replica's policy applies once it is promoted). */
function nodesOf(client: RedisClient): RedisClient[] {
  return client.isCluster && 'nodes' in client ? client.nodes('all') : [client];
}

function addressOf(node: RedisClient): string {
  const { host, port } = node.options as { host?: string; port?: number };
  return `${host ?? '?'}:${port ?? '?'}`;
}

/**
 * Refuses a Redis that evicts keys when full: Gatehouse's keys are live sessions, their users'
 * indexes and login throttle counters, and a key evicted silently logs a user out, loses the index
 * entry that lets "end all sessions" find a session, or gives a guesser its attempts back. Every
 * one of these keys carries a time to live, so a `volatile-*` policy chooses among exactly them,
 * like `allkeys-*`: only `noeviction` is accepted (a full Redis then refuses writes, and logins
 * answer 503 while lookups keep working). Where CONFIG is not allowed (managed Redis often
 * disables it), the policy cannot be read: the warning returned says so, and start-up goes on.
 *
 * `variable` names the setting that points at this Redis (REDIS_URL or REDIS_CLUSTER_NODES).
 */
export async function checkEvictionPolicy(client: RedisClient, variable: string): Promise<string | null> {
  const evicting: string[] = [];
  const unreadable: string[] = [];
  for (const node of nodesOf(client)) {
    try {
      const [, policy] = (await node.config('GET', 'maxmemory-policy')) as [string?, string?];
      if (policy === undefined) unreadable.push(`${addressOf(node)} (no maxmemory-policy)`);
      else if (policy !== 'noeviction') evicting.push(`maxmemory-policy ${policy} on ${addressOf(node)}`);
    } catch (error) {
      unreadable.push(`${addressOf(node)} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (evicting.length > 0) {
    throw new RedisEvictionPolicyError(
      `${variable}: Redis evicts keys when its memory is full (${evicting.join(', ')}): live sessions ` +
        'and login throttle counters would vanish without a trace. Set maxmemory-policy noeviction ' +
        '(CONFIG SET maxmemory-policy noeviction, and in redis.conf); see docs/operations.md.',
    );
  }
  if (unreadable.length === 0) return null;
  return (
    `${variable}: could not read Redis's maxmemory-policy on ${unreadable.join(', ')}; make sure it ` +
    'is noeviction, or live sessions and login throttle counters can vanish when Redis is full ' +
    '(docs/operations.md).'
  );
}
