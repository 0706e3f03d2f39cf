import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { openRedis } from '../../src/adapters/redis/redis-start.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { sessionKeepUntil } from '../../src/domain/session/session.js';
import { contractSession, sessionStoreContract, throttleStoreContract } from '../../src/testing/stores.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { sessionLookupContract } from '../contract/session-lookup.contract.js';
import { sessionReplacementContract } from '../contract/session-replacement.contract.js';
import { openTestStore } from '../support/databases.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { freshRedisSplitStores } from '../support/redis-stores.js';

// The session and throttle contracts on a real redis-server, users on PGlite: the split the
// service runs with SESSION_STORE=redis. One server and one database for the file; each test gets
// a key prefix of its own and an emptied database.
describe('Redis storage [redis]', () => {
  let redis: TestRedis;
  let client: RedisClient;
  let sql: SqlClient;

  beforeAll(async () => {
    redis = await startTestRedis();
    // As the service starts: commands are not queued before the connection is up.
    client = await openRedis({ url: redis.url, commandTimeoutMs: 2000 }, { variable: 'REDIS_URL' });
    sql = await openTestStore('pglite');
  });
  afterAll(async () => {
    client?.disconnect();
    await sql?.close();
    await redis?.close();
  });

  const { fresh, prefix, freshSessions, freshThrottle } = freshRedisSplitStores(
    () => sql,
    () => client,
    'test',
  );

  // The stores alone, as the testing kit proves any store: Redis declares no capability.
  sessionStoreContract({ name: 'redis', declares: [], open: freshSessions });
  throttleStoreContract({ name: 'redis', declares: [], open: freshThrottle });
  // With the users on the database: the split the service runs.
  sessionLookupContract(fresh);
  providerSessionEndingContract(fresh);
  // Redis has no `replace`: the fallback, on a real store.
  sessionReplacementContract(fresh);

  it('keeps every key under the prefix, and gives each session key a time to live', async () => {
    const store = await fresh();
    const { newUser, T0 } = await import('../contract/user-repository.contract.js');
    const user = await store.users.create(newUser({ username: 'ttl' }), T0);
    const session = contractSession(user.userId, { createdAt: T0 });
    await store.sessions.create(session, sessionKeepUntil(session, 1800));
    const keys = await redis.client.keys(`${prefix()}*`);
    expect(keys.sort()).toEqual(
      [`${prefix()}s:${session.tokenHash}`, `${prefix()}u:{${user.userId}}`].sort(),
    );
    const ttl = await redis.client.pttl(`${prefix()}s:${session.tokenHash}`);
    // Idle time-out (30 min) plus the 10 min grace.
    expect(ttl).toBeGreaterThan(39 * 60_000);
    expect(ttl).toBeLessThanOrEqual(40 * 60_000);
  });
});
