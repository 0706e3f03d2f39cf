/**
 * A whole Redis Cluster away under a running service: every node frozen (SIGSTOP: connections stay
 * open, nothing answers) or killed (SIGKILL: every connection refused). Every route that needs the
 * session store answers 503 SERVICE_UNAVAILABLE with Retry-After instead of holding the request,
 * `/readyz` answers 503 within its own short bound, `/healthz` stays 200, and the service serves
 * again by itself once the nodes are back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READINESS_TIMEOUT_MS } from '../../src/adapters/http/routes/health-routes.js';
import type { TestCluster } from '../support/redis-cluster.js';
import { TestClient, type TestServer } from '../support/test-server.js';
import { startServiceOnOwnCluster } from './support/cluster-service.js';
import { report, sleep, waitUntil } from './support/timing.js';

const PASSWORD = 'correct horse battery staple';
const COMMAND_TIMEOUT_MS = 2000;
/**
 * Test time-outs, not latency targets: a request not answered by then was held, which is the
 * fault. A store request gets its command time-out and a margin for two busy cores (a request
 * queued behind another's stalled command, twice the time-out, fails here); readiness gets its own
 * bound and a margin, still below the command time-out, so a readiness check that waited for a
 * stalled command fails here too.
 */
const STORE_ANSWER_LIMIT_MS = COMMAND_TIMEOUT_MS + 1500;
const READY_ANSWER_LIMIT_MS = READINESS_TIMEOUT_MS + 1000;

type Answer = Awaited<ReturnType<TestClient['get']>>;

/** The answer, or a failure naming the request when none came within `limitMs`. */
async function answered(
  name: string,
  request: Promise<Answer>,
  limitMs: number,
): Promise<{ name: string; answer: Answer; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: not answered within ${limitMs} ms`)), limitMs);
  });
  try {
    const answer = await Promise.race([request, held]);
    return { name, answer, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

function expectUnavailable(name: string, answer: Answer): void {
  expect(answer.status, name).toBe(503);
  expect(answer.body?.code, name).toBe('SERVICE_UNAVAILABLE');
  expect(Number(answer.headers.get('retry-after')), name).toBeGreaterThan(0);
  expect(answer.headers.get('content-type'), name).toMatch(/^application\/problem\+json/);
}

describe('a Redis Cluster with every node down [redis-cluster]', () => {
  let cluster: TestCluster;
  let server: TestServer;
  let ports: number[];

  beforeAll(async () => {
    ({ cluster, server } = await startServiceOnOwnCluster({
      keyPrefix: 'down:',
      usernames: ['ann', 'bob'],
      password: PASSWORD,
      env: { REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS), LOGIN_MAX_FAILURES: '1000' },
    }));
    ports = cluster.nodes.map((node) => Number(node.slice(node.lastIndexOf(':') + 1)));
  }, 90_000);
  afterAll(async () => {
    for (const port of ports ?? []) cluster.signal(port, 'SIGCONT');
    await server?.close();
    await cluster?.close();
  });

  async function loggedIn(username: string): Promise<TestClient> {
    const client = new TestClient(server.url);
    const login = await client.post('/api/v1/login/', { username, password: PASSWORD });
    expect(login.status).toBe(200);
    return client;
  }

  /**
   * Every kind of request, sent together while the cluster is away; each must be answered. The
   * logout ends `leaving`, not `client`: a command sent to a frozen node may still run when the
   * node resumes (a 503 says the outcome is unknown), so it must not be `client`'s session.
   */
  async function everyRoute(client: TestClient, leaving: TestClient) {
    const store = (name: string, request: Promise<Answer>) => answered(name, request, STORE_ANSWER_LIMIT_MS);
    return Promise.all([
      store('session', client.get('/api/v1/session/')),
      store('forward auth', client.get('/api/v1/session/check/')),
      store(
        'login',
        new TestClient(server.url).post('/api/v1/login/', { username: 'bob', password: PASSWORD }),
      ),
      store('logout', leaving.post('/api/v1/logout/', {})),
      store('session list', client.get('/api/v1/sessions/')),
      store('revoke others', client.post('/api/v1/sessions/revoke-others/', {})),
      answered('readyz', client.get('/readyz'), READY_ANSWER_LIMIT_MS),
      answered('healthz', client.get('/healthz'), READY_ANSWER_LIMIT_MS),
    ]);
  }

  function expectOutageAnswers(answers: Awaited<ReturnType<typeof everyRoute>>): void {
    for (const { name, answer } of answers) {
      if (name === 'healthz') expect(answer.status, name).toBe(200);
      else if (name === 'readyz') {
        expect(answer.status, name).toBe(503);
        expect(answer.body, name).toEqual({ status: 'unavailable', session_store: 'redis-cluster' });
        expect(Number(answer.headers.get('retry-after')), name).toBeGreaterThan(0);
      } else expectUnavailable(name, answer);
    }
  }

  const describeAnswers = (answers: Awaited<ReturnType<typeof everyRoute>>) =>
    answers.map(({ name, answer, ms }) => `${name} ${answer.status} in ${ms} ms`).join(', ');

  it('every node frozen: 503 with Retry-After within the command time-out, /readyz 503 within its bound, /healthz 200; serves again when they resume', async () => {
    const ann = await loggedIn('ann');
    const leaving = await loggedIn('ann');
    for (const port of ports) cluster.signal(port, 'SIGSTOP');
    try {
      const answers = await everyRoute(ann, leaving);
      report(`cluster frozen (command time-out ${COMMAND_TIMEOUT_MS} ms): ${describeAnswers(answers)}`);
      expectOutageAnswers(answers);
      // Still frozen a while later (past the cluster's node time-out and a slot refresh): the same.
      await sleep(6000);
      expectOutageAnswers(await everyRoute(ann, leaving));
    } finally {
      for (const port of ports) cluster.signal(port, 'SIGCONT');
    }
    const recoveryMs = await waitUntil(async () => (await ann.get('/api/v1/session/')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the session answered again after the nodes resumed',
    });
    report(`cluster frozen: the session answered 200 again ${recoveryMs} ms after the nodes resumed`);
    await cluster.waitHealthy();
    expect((await ann.get('/readyz')).status).toBe(200);
    await loggedIn('bob');
  }, 120_000);

  it('every node killed: 503 with Retry-After at once, /readyz 503, /healthz 200; serves again without a restart when they are back', async () => {
    const ann = await loggedIn('ann');
    const leaving = await loggedIn('ann');
    for (const port of ports) await cluster.kill(port);
    const answers = await everyRoute(ann, leaving);
    report(`cluster killed: ${describeAnswers(answers)}`);
    expectOutageAnswers(answers);
    // Many requests at once: each answered, none held.
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        answered(`session ${i}`, ann.get('/api/v1/session/'), STORE_ANSWER_LIMIT_MS),
      ),
    );
    for (const { name, answer } of burst) expectUnavailable(name, answer);
    // Still away a while later (the client keeps trying to reconnect meanwhile): the same.
    await sleep(3000);
    expectOutageAnswers(await everyRoute(ann, leaving));

    // The nodes start again on their ports, empty (nothing on disk): the client reconnects by
    // itself, and the service serves again without a restart.
    for (const port of ports) await cluster.restart(port);
    await cluster.waitHealthy(60_000);
    const recoveryMs = await waitUntil(async () => (await ann.get('/readyz')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'ready again after the nodes restarted',
    });
    report(`cluster killed: ready again ${recoveryMs} ms after the cluster was healthy`);
    // The restarted nodes kept nothing: ann's session is gone (401), and she logs in again.
    await waitUntil(async () => (await ann.get('/api/v1/session/')).status === 401, {
      timeoutMs: 15_000,
      what: 'the session read as gone',
    });
    const again = await loggedIn('ann');
    expect((await again.get('/api/v1/session/')).status).toBe(200);
    expect((await again.get('/api/v1/sessions/')).status).toBe(200);
  }, 150_000);
});
