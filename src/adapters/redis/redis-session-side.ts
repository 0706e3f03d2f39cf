import type { SessionSide } from '../../domain/session/session-side.port.js';
import type { RedisClient } from './redis-connection.js';
import { type RedisSessionSettings, RedisSessionStore } from './redis-session-store.js';
import { RedisThrottleStore } from './redis-throttle-store.js';

/**
 * Sessions and login throttling on one Redis connection (a server or a cluster), opened by
 * `openRedis`. Ready while Redis answers a PING; closing quits the connection (or drops it when
 * Redis is gone).
 */
export function redisSessionSide(client: RedisClient, settings: RedisSessionSettings): SessionSide {
  return {
    sessions: new RedisSessionStore(client, settings),
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
