import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/adapters/redis/redis-connection.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { newSession, sessionRepositoryContract } from '../contract/session-repository.contract.js';
import { throttleStoreContract } from '../contract/throttle-store.contract.js';
import { newUser, T0 } from '../contract/user-repository.contract.js';
import { openTestStore } from '../support/databases.js';
import { startTestCluster, type TestCluster } from '../support/redis-cluster.js';
import { freshRedisSplitStores } from '../support/redis-stores.js';

// The session and throttle contracts on a real Redis Cluster (3 masters, 3 replicas) started for
// this file, users on PGlite. Creations and deletions wait for a replica (WAIT 1), as the service
// does on a cluster.
describe('Redis Cluster storage [redis-cluster]', () => {
  let cluster: TestCluster;
  let client: RedisClient;
  let sql: SqlClient;

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

  const { fresh, prefix } = freshRedisSplitStores(
    () => sql,
    () => client,
    'c',
    { idleTimeoutS: 1800, replicaAcks: { replicas: 1, timeoutMs: 1000 } },
  );

  sessionRepositoryContract(fresh);
  throttleStoreContract(fresh);

  it('spreads sessions over the masters (no single hash tag), with no cross-slot error', async () => {
    const store = await fresh();
    const user = await store.users.create(newUser({ username: 'spread' }), T0);
    const created = Array.from({ length: 30 }, () => newSession(user.userId));
    for (const session of created) await store.sessions.create(session);
    const masters = new Set<number>();
    for (const session of created)
      masters.add((await cluster.masterOf(`${prefix()}s:${session.tokenHash}`)).port);
    expect(masters.size).toBe(3);
    expect(await store.sessions.listForUser(user.userId, { limit: 100 })).toHaveLength(30);
    expect(await store.sessions.deleteAllForUser(user.userId)).toBe(30);
  });
});
