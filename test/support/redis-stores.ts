/**
 * The store the service runs with SESSION_STORE=redis, for the contract suites: the production
 * SplitStore over a migrated test database (users, directory, audit) and a Redis session side on
 * `client` under a key prefix of its own.
 */
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import {
  type RedisSessionSettings,
  RedisSessionStore,
} from '../../src/adapters/redis/redis-session-store.js';
import { RedisThrottleStore } from '../../src/adapters/redis/redis-throttle-store.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { SqlStore } from '../../src/adapters/sql/sql-store.js';
import { SqlUserLookup } from '../../src/adapters/sql/sql-user-lookup.js';
import { SplitStore } from '../../src/adapters/stores/split-store.js';
import type { EndingStore } from '../../src/domain/store.port.js';
import { testMigrations, truncateAll } from './databases.js';

/** A fresh store per call: the database emptied, the next key prefix (`<base><n>:`). */
export function freshRedisSplitStores(
  sql: () => SqlClient,
  client: () => RedisClient,
  base: string,
  settings: Omit<RedisSessionSettings, 'keyPrefix'> = {},
): {
  fresh: () => Promise<EndingStore>;
  prefix: () => string;
  /** The session store alone (no database), under the next key prefix: for the testing kit. */
  freshSessions: () => Promise<{ sessions: RedisSessionStore }>;
  /** The throttle store alone, under the next key prefix. */
  freshThrottle: () => Promise<{ throttle: RedisThrottleStore }>;
} {
  let run = 0;
  const prefix = () => `${base}${run}:`;
  const fresh = async (): Promise<EndingStore> => {
    await truncateAll(sql());
    run += 1;
    const keyPrefix = prefix();
    const store = new SplitStore(
      new SqlStore(sql(), testMigrations()),
      {
        sessions: new RedisSessionStore(client(), { ...settings, keyPrefix }),
        throttle: new RedisThrottleStore(client(), keyPrefix),
        isReady: async () => true,
        close: async () => undefined,
      },
      // The batched user lookup the service uses with SESSION_STORE=redis.
      new SqlUserLookup(sql()),
    );
    // The test file owns the database and the connection: a test's close() leaves them open.
    return Object.assign(store, { close: async () => undefined });
  };
  const nextPrefix = () => {
    run += 1;
    return prefix();
  };
  const freshSessions = async () => ({
    sessions: new RedisSessionStore(client(), { ...settings, keyPrefix: nextPrefix() }),
  });
  const freshThrottle = async () => ({ throttle: new RedisThrottleStore(client(), nextPrefix()) });
  return { fresh, prefix, freshSessions, freshThrottle };
}
