import type {
  ThrottleReservation,
  ThrottleStore,
  ThrottleStoreCapabilities,
} from '../../domain/login/throttle-store.port.js';
import type { RedisClient } from './redis-connection.js';
import { redisCall } from './redis-errors.js';
import { type ScriptedRedis, withScripts } from './redis-scripts.js';

/**
 * Login throttling budgets in Redis: one hash per key, `<prefix>t:<key>` (`s` the window's start,
 * `n` the attempts taken), changed only by one-key scripts, so a reservation is atomic on one
 * server and on a cluster alike. A key expires by itself a minute after its window.
 */
export class RedisThrottleStore implements ThrottleStore {
  /** No purge: every key expires by itself (a SCAN of every master is no regular path). */
  readonly capabilities: ThrottleStoreCapabilities = {};
  private readonly redis: ScriptedRedis;

  constructor(
    client: RedisClient,
    private readonly keyPrefix: string,
  ) {
    this.redis = withScripts(client);
  }

  private key(key: string): string {
    return `${this.keyPrefix}t:${key}`;
  }

  reserve(key: string, limit: number, now: Date, windowS: number): Promise<ThrottleReservation> {
    return redisCall(async () => {
      const [granted, value] = (await this.redis.gatehouseThrottleReserve(
        this.key(key),
        now.getTime(),
        limit,
        windowS * 1000,
      )) as [number, number];
      return granted === 1 ? { granted: true, used: value } : { granted: false, retryAt: new Date(value) };
    });
  }

  release(key: string): Promise<void> {
    return redisCall(async () => {
      await this.redis.gatehouseThrottleRelease(this.key(key));
    });
  }

  reset(key: string): Promise<void> {
    return redisCall(async () => {
      await this.redis.del(this.key(key));
    });
  }
}
