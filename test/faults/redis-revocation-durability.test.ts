/**
 * Issue 10: an answered revocation is never undone by a Redis master failover. The session's
 * replica is frozen (SIGSTOP), so a deletion on the master cannot reach it; then the master dies
 * and the frozen replica, resumed, is promoted with the session still in it. A logout answered 200
 * in that window would come back to life: the service must not answer 200 until a replica holds
 * the deletion (WAIT), so it answers 503, and the client's retry after the failover ends the
 * session for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import type { TestCluster } from '../support/redis-cluster.js';
import { TestClient, type TestServer } from '../support/test-server.js';
import { startServiceOnOwnCluster } from './support/cluster-service.js';
import { report, sleep } from './support/timing.js';

const PASSWORD = 'correct horse battery staple';
const PREFIX = 'rd:';

describe('an answered revocation survives a master failover [redis-cluster]', () => {
  let cluster: TestCluster;
  let server: TestServer;

  beforeAll(async () => {
    ({ cluster, server } = await startServiceOnOwnCluster({
      keyPrefix: PREFIX,
      usernames: ['ann'],
      password: PASSWORD,
    }));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.close();
  });

  it('does not answer a logout 200 while no replica holds it; the retry after failover holds', async () => {
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    const master = await cluster.masterOf(`${PREFIX}s:${hashSessionToken(client.session!)}`);
    const replica = await cluster.replicaOf(master.port);

    const token = client.session!;
    cluster.signal(replica.port, 'SIGSTOP');
    const logout = await client.post('/api/v1/logout/', {});
    await cluster.kill(master.port);
    cluster.signal(replica.port, 'SIGCONT');
    const failoverStarted = Date.now();
    await cluster.waitPromoted(replica.port);
    await cluster.waitHealthy(30_000);
    const failoverS = (Date.now() - failoverStarted) / 1000;

    // Never "answered, then undone": the logout was not answered 200 while the replica lacked it.
    expect(logout.status).toBe(503);
    const resurrected = new TestClient(server.url);
    resurrected.cookies.set('sessionid', token);
    // The client retries, as told by 503 + Retry-After: now answered, and it holds.
    let retried = 0;
    const retryStarted = Date.now();
    for (let i = 0; i < 80 && retried !== 200; i++) {
      retried = (await resurrected.post('/api/v1/logout/', {})).status;
      if (retried !== 200) await sleep(250);
    }
    expect(retried).toBe(200);
    report(
      `Redis revocation durability: logout answered ${logout.status} while the replica was frozen; ` +
        `replica promoted ${failoverS.toFixed(1)} s after the kill; the retried logout answered 200 after ` +
        `${((Date.now() - retryStarted) / 1000).toFixed(1)} s more`,
    );
    expect((await resurrected.get('/api/v1/session/')).status).toBe(401);
  }, 90_000);
});
