import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { RedisSessionRepository } from '../../src/adapters/redis/redis-session-repository.js';
import { RedisThrottleStore } from '../../src/adapters/redis/redis-throttle-store.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { newSession, sessionRepositoryContract } from '../contract/session-repository.contract.js';
import { throttleStoreContract } from '../contract/throttle-store.contract.js';
import { newUser, T0 } from '../contract/user-repository.contract.js';
import { openTestStore, repositories, truncateAll } from '../support/databases.js';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';

// The session and throttle contracts on a real Redis Cluster (3 masters, 3 replicas) started for
// this file, users on PGlite. Creations and deletions wait for a replica (WAIT 1), as the service
// does on a cluster.
describe('Redis Cluster storage [redis-cluster]', () => {
  let cluster: TestCluster;
  let client: RedisClient;
  let sql: SqlClient;
  let run = 0;

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = connectRedis({ clusterNodes: cluster.nodes, commandTimeoutMs: 2000 });
    client.on('error', () => undefined);
    sql = await openTestStore('pglite');
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await sql?.close();
    await cluster?.close();
  });

  const fresh = async () => {
    await truncateAll(sql);
    run += 1;
    const keyPrefix = `c${run}:`;
    const database = repositories(sql);
    const sessions = new RedisSessionRepository(client, {
      keyPrefix,
      idleTimeoutS: 1800,
      replicaAcks: { replicas: 1, timeoutMs: 1000 },
    });
    return {
      ...database,
      sessions,
      throttle: new RedisThrottleStore(client, keyPrefix),
      findSessionWithUser: async (tokenHash: string) => {
        const session = await sessions.findByTokenHash(tokenHash);
        if (!session) return null;
        const user = await database.users.findByUserId(session.userId);
        return user ? { session, user } : null;
      },
      close: async () => {},
    };
  };

  sessionRepositoryContract(fresh);
  throttleStoreContract(fresh);

  it('spreads sessions over the masters (no single hash tag), with no cross-slot error', async () => {
    const store = await fresh();
    const user = await store.users.create(newUser({ username: 'spread' }), T0);
    const created = Array.from({ length: 30 }, () => newSession(user.userId));
    for (const session of created) await store.sessions.create(session);
    const masters = new Set<number>();
    for (const session of created)
      masters.add((await cluster.masterOf(`c${run}:s:${session.tokenHash}`)).port);
    expect(masters.size).toBe(3);
    expect(await store.sessions.listForUser(user.userId, { limit: 100 })).toHaveLength(30);
    expect(await store.sessions.deleteAllForUser(user.userId)).toBe(30);
  });
});
