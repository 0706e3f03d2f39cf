/**
 * Issue 10: a Redis Cluster master killed (SIGKILL) under login, lookup and revoke load. Checked
 * afterwards: every revocation that was answered stays revoked (never undone by the failover),
 * every login that was answered still works, a live session never got a 401 (only 200 or 503),
 * nothing answered 500; and the failover window is measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import type { TestCluster } from '../support/redis-cluster.js';
import { TestClient, type TestServer } from '../support/test-server.js';
import { startServiceOnOwnCluster } from './support/cluster-service.js';
import { report, sleep } from './support/timing.js';

const PASSWORD = 'correct horse battery staple';
const PREFIX = 'fo:';
const USERS = Array.from({ length: 8 }, (_, i) => `user${i}`);

describe('Redis Cluster master failover under load [redis-cluster]', () => {
  let cluster: TestCluster;
  let server: TestServer;

  beforeAll(async () => {
    ({ cluster, server } = await startServiceOnOwnCluster({
      keyPrefix: PREFIX,
      usernames: USERS,
      password: PASSWORD,
      env: { LOGIN_MAX_FAILURES: '1000' },
    }));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.close();
  });

  let killed = false;

  async function login(username: string): Promise<TestClient | null> {
    const client = new TestClient(server.url);
    const response = await client.post('/api/v1/login/', { username, password: PASSWORD });
    if (response.status !== 200 && !killed)
      throw new Error(`login before the kill: ${response.status} ${server.rawLogs.slice(-3).join('\n')}`);
    return response.status === 200 ? client : null;
  }

  it('keeps answered revocations and logins, never 401s a live session, and recovers', async () => {
    // Stayers are checked all along and never logged out; the others are logged out one a round.
    const stayers: TestClient[] = [];
    const revocable: TestClient[] = [];
    for (let i = 0; i < 60; i++)
      (i < 12 ? stayers : revocable).push((await login(USERS[i % USERS.length]!))!);
    // The victim: the master holding the first stayer's session.
    const victim = await cluster.masterOf(`${PREFIX}s:${hashSessionToken(stayers[0]!.session!)}`);

    const revoked: TestClient[] = [];
    const uncertain: TestClient[] = [];
    const loggedIn: TestClient[] = [];
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const liveAnswers: number[] = [];
    const unavailableAt: number[] = [];
    const started = Date.now();
    let killedAt = 0;
    /** The first stayer lives on the victim's slots: when it is answered again, and the slowest answer. */
    let victimBackAt = 0;
    let slowest = 0;
    /** The longest round: a request held while the cluster fails over (ioredis retries it). */
    let slowestRound = 0;
    /** What the first stayer (on the victim's slots) was answered, for requests sent after the kill. */
    const victimAnswers: number[] = [];
    let round = 0;
    while (Date.now() - started < 12_000) {
      round += 1;
      if (!killedAt && Date.now() - started > 1500) {
        killed = true;
        await cluster.kill(victim.port);
        killedAt = Date.now();
      }
      const checks = stayers.map(async (client, index) => {
        const sent = Date.now();
        const response = await client.get('/api/v1/session/');
        if (index === 0 && killedAt && sent >= killedAt) {
          victimAnswers.push(response.status);
          slowest = Math.max(slowest, Date.now() - sent);
          if (response.status === 200 && !victimBackAt) victimBackAt = Date.now();
        }
        liveAnswers.push(response.status);
        count(response.status);
        if (response.status === 503) unavailableAt.push(Date.now());
      });
      const logout = (async () => {
        const client = revocable.pop();
        if (!client) return;
        const response = await client.post('/api/v1/logout/', {});
        count(response.status);
        // Answered: the session must stay ended. Not answered (503): its outcome is unknown (the
        // deletion may have happened without a replica's confirmation); retried after the failover,
        // as a client would.
        if (response.status === 200) revoked.push(client);
        else uncertain.push(client);
      })();
      const newLogin = (async () => {
        const client = await login(USERS[round % USERS.length]!);
        if (client) loggedIn.push(client);
      })();
      const roundStarted = Date.now();
      await Promise.all([...checks, logout, newLogin]);
      slowestRound = Math.max(slowestRound, Date.now() - roundStarted);
      await sleep(50);
    }
    await cluster.waitHealthy();

    // A live session was answered 200 or 503, never 401 (a 401 makes a portal log its user out).
    expect(liveAnswers.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses.get(500) ?? 0).toBe(0);
    // A revocation retried after the failover is answered, and holds.
    for (const client of uncertain) {
      expect((await client.post('/api/v1/logout/', {})).status).toBe(200);
      revoked.push(client);
    }
    // Every answered revocation holds after the failover.
    for (const client of revoked) expect((await client.get('/api/v1/session/')).status).toBe(401);
    // Every answered login (and every session never revoked) still works.
    for (const client of [...loggedIn, ...stayers, ...revocable])
      expect((await client.get('/api/v1/session/')).status).toBe(200);

    const window = unavailableAt.length > 0 ? Math.max(...unavailableAt) - killedAt : 0;
    report(
      `Redis failover: master :${victim.port} killed; a session on it answered again ${((victimBackAt - killedAt) / 1000).toFixed(1)} s ` +
        `after the kill (its slowest answer ${(slowest / 1000).toFixed(1)} s; slowest request of the run ${(slowestRound / 1000).toFixed(1)} s); last 503 ${(window / 1000).toFixed(1)} s after the kill; ` +
        `${revoked.length} revocations (${uncertain.length} retried after a 503) and ${loggedIn.length} logins answered, all kept; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    // A request for the dead master's slots ends with 503 at the command time-out (1 s, timed in
    // this process), not held until the replica takes over: the slots stay masterless for the
    // cluster's node time-out at least (2 s, counted by Redis). Held, the victim's session would
    // go from 200 to 200 with no 503 between.
    const firstBack = victimAnswers.indexOf(200);
    expect(firstBack).toBeGreaterThan(0);
    expect(victimAnswers.slice(0, firstBack)).toContain(503);
    expect(revoked.length).toBeGreaterThan(10);
    expect(loggedIn.length).toBeGreaterThan(10);
  }, 120_000);
});
