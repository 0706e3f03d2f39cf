import type { Logger } from '../adapters/logging/logger.js';
import { MemorySessionStore } from '../adapters/memory/memory-session-store.js';
import { MemoryThrottleStore } from '../adapters/memory/memory-throttle-store.js';
import { connectRedis } from '../adapters/redis/redis-connection.js';
import { checkEvictionPolicy } from '../adapters/redis/redis-eviction-policy.js';
import { RedisSessionRepository } from '../adapters/redis/redis-session-repository.js';
import { RedisThrottleStore } from '../adapters/redis/redis-throttle-store.js';
import type { SessionSide } from '../adapters/sql/split-store.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/shared/clock.port.js';

/**
 * SESSION_STORE=memory: sessions and throttling in this process (one process; nothing survives a
 * restart). Expiry is judged by the service's clock.
 */
export function memorySessionSide(clock: Clock): SessionSide {
  return {
    sessions: new MemorySessionStore(clock),
    throttle: new MemoryThrottleStore(),
    isReady: async () => true,
    close: async () => undefined,
  };
}

/** How long start-up waits for Redis before it stops with a message naming the variable. */
function startTimeoutMs(commandTimeoutMs: number): number {
  return Math.max(5 * commandTimeoutMs, 1000);
}

/** Start-up stops: Redis did not answer. The message names the variable to check. */
export class RedisUnreachableError extends Error {
  constructor(variable: string, waitedMs: number, cause: unknown) {
    super(
      `${variable}: Redis did not answer within ${waitedMs / 1000} s ` +
        `(${cause instanceof Error ? cause.message : String(cause)}). Check the address, credentials and TLS.`,
      { cause },
    );
    this.name = 'RedisUnreachableError';
  }
}

/**
 * SESSION_STORE=redis: connects to the server or cluster and waits until it answers, so a wrong
 * address stops start-up with a clear message instead of a service that answers 503 forever.
 * Once started, a lost connection is retried in the background (503 meanwhile, no restart).
 */
export async function openRedisSessionSide(
  config: Config,
  logger?: Logger,
): Promise<SessionSide & { description: string }> {
  const settings = config.sessionStore;
  if (settings.kind !== 'redis') throw new Error('openRedisSessionSide: SESSION_STORE is not redis');
  const client = connectRedis({
    ...(settings.url ? { url: settings.url } : {}),
    ...(settings.clusterNodes
      ? { clusterNodes: settings.clusterNodes, clusterAuth: settings.clusterAuth }
      : {}),
    commandTimeoutMs: settings.commandTimeoutMs,
    ...(settings.tlsCa ? { tlsCa: settings.tlsCa } : {}),
  });
  // ioredis reports connection errors as events too; they are answered per command (503). The
  // last one says why start-up could not connect (refused, wrong password, TLS).
  let connectionError: unknown = null;
  client.on('error', (error) => {
    connectionError = error;
  });
  const variable = settings.clusterNodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
  try {
    await waitUntilReady(client, startTimeoutMs(settings.commandTimeoutMs), () => connectionError);
  } catch (error) {
    client.disconnect();
    throw new RedisUnreachableError(variable, startTimeoutMs(settings.commandTimeoutMs), error);
  }
  try {
    const unchecked = await checkEvictionPolicy(client, variable);
    if (unchecked) logger?.warn({ event: 'redis_eviction_policy_unchecked' }, unchecked);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return {
    description: settings.clusterNodes
      ? `redis cluster (${settings.clusterNodes.length} seed nodes)`
      : 'redis',
    sessions: new RedisSessionRepository(client, {
      keyPrefix: settings.keyPrefix,
      // On a cluster every master has a replica: creations and deletions wait for one (WAIT),
      // for at most half the command time-out, so the WAIT itself never times out client-side.
      ...(settings.clusterNodes
        ? {
            replicaAcks: {
              replicas: 1,
              timeoutMs: Math.min(1000, Math.floor(settings.commandTimeoutMs / 2)),
            },
          }
        : {}),
    }),
    throttle: new RedisThrottleStore(client, settings.keyPrefix),
    isReady: async () => {
      try {
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

const WILL_NOT_PASS = /NOAUTH|WRONGPASS|invalid password|ERR AUTH|certificate|SSL|TLS/i;

async function waitUntilReady(
  client: ReturnType<typeof connectRedis>,
  timeoutMs: number,
  connectionError: () => unknown,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = new Error('no answer');
  while (Date.now() < deadline) {
    try {
      if ((await client.ping()) === 'PONG') return;
    } catch (error) {
      last = connectionError() ?? error;
      // Authentication and TLS errors will not go away by waiting.
      if (WILL_NOT_PASS.test(String(last))) throw last;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw connectionError() ?? last;
}
