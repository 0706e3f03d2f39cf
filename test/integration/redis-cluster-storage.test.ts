import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { openRedis } from '../../src/adapters/redis/redis-start.js';
import type { SqlClient } from '../../src/adapters/sql/sql-client.js';
import { sessionKeepUntil } from '../../src/domain/session/session.js';
import { contractSession, sessionStoreContract, throttleStoreContract } from '../../src/testing/stores.js';
import { providerSessionEndingContract } from '../contract/provider-session-ending.contract.js';
import { sessionLookupContract } from '../contract/session-lookup.contract.js';
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
    // As the service starts: commands are not queued before the connection is up.
    client = await openRedis(
      { clusterNodes: cluster.nodes, commandTimeoutMs: 2000 },
      { variable: 'REDIS_CLUSTER_NODES' },
    );
    client.on('error', () => undefined);
    sql = await openTestStore('pglite');
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await sql?.close();
    await cluster?.close();
  });

  const { fresh, prefix, freshSessions, freshThrottle } = freshRedisSplitStores(
    () => sql,
    () => client,
    'c',
    { replicaAcks: { replicas: 1, timeoutMs: 1000 } },
  );

  // The stores alone, as the testing kit proves any store: Redis declares no capability.
  sessionStoreContract({ name: 'redis-cluster', declares: [], open: freshSessions });
  throttleStoreContract({ name: 'redis-cluster', declares: [], open: freshThrottle });
  // With the users on the database: the split the service runs.
  sessionLookupContract(fresh);
  providerSessionEndingContract(fresh);

  it('spreads sessions over the masters (no single hash tag), with no cross-slot error', async () => {
    const store = await fresh();
    const user = await store.users.create(newUser({ username: 'spread' }), T0);
    const created = Array.from({ length: 30 }, () => contractSession(user.userId, { createdAt: T0 }));
    for (const session of created) await store.sessions.create(session, sessionKeepUntil(session, 1800));
    const masters = new Set<number>();
    for (const session of created)
      masters.add((await cluster.masterOf(`${prefix()}s:${session.tokenHash}`)).port);
    expect(masters.size).toBe(3);
    expect(await store.sessions.listForUser(user.userId)).toHaveLength(30);
    expect(await store.sessions.deleteAllForUser(user.userId)).toBe(30);
  });
});
