import type { Logger } from '../adapters/logging/logger.js';
import { memorySessionSide } from '../adapters/memory/memory-session-side.js';
import { openSessionStoreModule, SessionStoreModuleError } from '../adapters/modules/session-store-module.js';
import { redisSessionSide } from '../adapters/redis/redis-session-side.js';
import { openRedis } from '../adapters/redis/redis-start.js';
import type { SessionSide } from '../domain/session/session-side.port.js';
import type { Clock } from '../domain/shared/clock.port.js';
import { type Config, ConfigError } from './config/config.js';

/**
 * Where SESSION_STORE puts sessions and throttling: null for the database itself, this process
 * (`memory`), Redis (`redis`: one server or a cluster; start-up waits for it, `openRedis`), or the
 * deployment's own store (`module`: SESSION_STORE_MODULE, opened once here, so the service,
 * `gatehouse serve` and every `gatehouse` command use it alike).
 */
export async function openSessionSide(
  config: Config,
  clock: Clock,
  logger?: Logger,
): Promise<SessionSide | null> {
  const settings = config.sessionStore;
  switch (settings.kind) {
    case 'sql':
      return null;
    case 'memory':
      return memorySessionSide(clock);
    case 'module':
      try {
        return await openSessionStoreModule(settings.specifier, settings.environment);
      } catch (error) {
        if (error instanceof SessionStoreModuleError) throw new ConfigError([error.message]);
        throw error;
      }
    case 'redis': {
      const client = await openRedis(
        {
          ...(settings.url ? { url: settings.url } : {}),
          ...(settings.clusterNodes
            ? { clusterNodes: settings.clusterNodes, clusterAuth: settings.clusterAuth }
            : {}),
          commandTimeoutMs: settings.commandTimeoutMs,
          ...(settings.tlsCa ? { tlsCa: settings.tlsCa } : {}),
        },
        {
          variable: settings.clusterNodes ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL',
          warn: (message) => logger?.warn({ event: 'redis_eviction_policy_unchecked' }, message),
        },
      );
      return redisSessionSide(client, {
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
      });
    }
  }
}
