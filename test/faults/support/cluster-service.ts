/**
 * A Redis Cluster of the test file's own (it kills and freezes nodes) and a Gatehouse keeping its
 * sessions there, with users seeded on its database.
 */
import { startTestCluster, type TestCluster } from '../../support/redis-cluster.js';
import { seedUser, startTestServer, type TestServer } from '../../support/test-server.js';

export async function startServiceOnOwnCluster(options: {
  keyPrefix: string;
  usernames: readonly string[];
  password: string;
  env?: Record<string, string>;
}): Promise<{ cluster: TestCluster; server: TestServer }> {
  const cluster = await startTestCluster();
  const server = await startTestServer({
    env: {
      SESSION_STORE: 'redis',
      REDIS_CLUSTER_NODES: cluster.nodes.join(','),
      REDIS_KEY_PREFIX: options.keyPrefix,
      // Bounds how long a request is held while a slot has no master.
      REDIS_COMMAND_TIMEOUT_MS: '1000',
      ...options.env,
    },
  });
  for (const username of options.usernames) {
    await seedUser(server, { username, password: options.password, tenantId: 't1', groupId: 'g1' });
  }
  return { cluster, server };
}
