/**
 * A whole Redis Cluster away under a running service: every node frozen (SIGSTOP: connections stay
 * open, nothing answers) or killed (SIGKILL: every connection refused). Every route that needs the
 * session store answers 503 SERVICE_UNAVAILABLE with Retry-After instead of holding the request,
 * `/readyz` answers 503 within its own short bound, `/healthz` stays 200, and the service serves
 * again by itself once the nodes are back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../support/redis-cluster.js';
import { TestClient, type TestServer } from '../support/test-server.js';
import { startServiceOnOwnCluster } from './support/cluster-service.js';
import { report, sleep, waitUntil } from './support/timing.js';

const PASSWORD = 'correct horse battery staple';
const COMMAND_TIMEOUT_MS = 2000;

/*
 * No elapsed-time bound. What ended each store request is read from the service's log (the
 * `store unavailable` line names the client's error): a frozen cluster, the command time-out; a
 * killed one, the refused connection, never the time-out. The service runs in this process, so
 * its timers and the test's run in the order they fall due: readiness, on its own shorter timer,
 * is answered before every store request waiting for a frozen node; frozen nodes that resume on a
 * timer due after the command time-out would answer a request held past it (200, not 503). A
 * request held for good holds the test until its own time-out.
 */

type Answer = Awaited<ReturnType<TestClient['get']>>;

interface Answered {
  name: string;
  answer: Answer;
  ms: number;
  /** Its place among the answers of the same batch (0: first). */
  place: number;
}

/** Sends the requests together (each made by a function); their answers, in the order sent. */
function together(requests: Array<[name: string, send: () => Promise<Answer>]>): Promise<Answered[]> {
  let place = 0;
  return Promise.all(
    requests.map(async ([name, send]) => {
      const started = performance.now();
      const answer = await send();
      return { name, answer, ms: Math.round(performance.now() - started), place: place++ };
    }),
  );
}

/** Whether a client error is the command time-out (ioredis's own words). */
const isCommandTimeout = (message: string) => message.includes('Command timed out');

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
  function everyRoute(client: TestClient, leaving: TestClient): Promise<Answered[]> {
    return together([
      ['session', () => client.get('/api/v1/session/')],
      ['forward auth', () => client.get('/api/v1/session/check/')],
      [
        'login',
        () => new TestClient(server.url).post('/api/v1/login/', { username: 'bob', password: PASSWORD }),
      ],
      ['logout', () => leaving.post('/api/v1/logout/', {})],
      ['session list', () => client.get('/api/v1/sessions/')],
      ['revoke others', () => client.post('/api/v1/sessions/revoke-others/', {})],
      ['readyz', () => client.get('/readyz')],
      ['healthz', () => client.get('/healthz')],
    ]);
  }

  /** What the `store unavailable` lines logged from `from` on say (the client's error). */
  const unavailableSince = (from: number) =>
    server.logs
      .slice(from)
      .filter((line) => line.msg === 'store unavailable')
      .map((line) => String((line.err as { message?: unknown } | undefined)?.message));

  /** The routes that need the session store (not /readyz, not /healthz). */
  const storeRoutes = (answers: Answered[]) =>
    answers.filter(({ name }) => name !== 'readyz' && name !== 'healthz');

  /**
   * With every node frozen: readiness (READINESS_TIMEOUT_MS, shorter) is answered before every
   * store route, each of which waits for its command time-out; a readiness check that waited for a
   * stalled command would come after them.
   */
  function expectReadinessFirst(answers: Answered[]): void {
    const readyz = answers.find(({ name }) => name === 'readyz')!;
    for (const { name, place } of storeRoutes(answers)) expect(place, name).toBeGreaterThan(readyz.place);
  }

  function expectOutageAnswers(answers: Answered[]): void {
    for (const { name, answer } of answers) {
      if (name === 'healthz') expect(answer.status, name).toBe(200);
      else if (name === 'readyz') {
        expect(answer.status, name).toBe(503);
        expect(answer.body, name).toEqual({ status: 'unavailable', session_store: 'redis-cluster' });
        expect(Number(answer.headers.get('retry-after')), name).toBeGreaterThan(0);
      } else expectUnavailable(name, answer);
    }
  }

  const describeAnswers = (answers: Answered[]) =>
    answers.map(({ name, answer, ms }) => `${name} ${answer.status} in ${ms} ms`).join(', ');

  it('every node frozen: 503 with Retry-After within the command time-out, /readyz 503 within its bound, /healthz 200; serves again when they resume', async () => {
    const ann = await loggedIn('ann');
    const leaving = await loggedIn('ann');
    for (const port of ports) cluster.signal(port, 'SIGSTOP');
    const logged = server.logs.length;
    try {
      const answers = await everyRoute(ann, leaving);
      report(`cluster frozen (command time-out ${COMMAND_TIMEOUT_MS} ms): ${describeAnswers(answers)}`);
      expectOutageAnswers(answers);
      expectReadinessFirst(answers);
      // The outage lasts past the cluster's node time-out and a slot refresh (the time passing is
      // the fault here, nothing waits on it): the same answers. This time the nodes resume on a
      // timer due half a command time-out after the command time-out: a request still held by
      // then would be answered by them, not 503.
      await sleep(6000);
      const resume = setTimeout(() => {
        for (const port of ports) cluster.signal(port, 'SIGCONT');
      }, COMMAND_TIMEOUT_MS * 1.5);
      const later = await everyRoute(ann, leaving);
      clearTimeout(resume);
      expectOutageAnswers(later);
      expectReadinessFirst(later);
      // Each store request of both batches ended by the command time-out.
      const why = unavailableSince(logged);
      expect(why.length).toBe(2 * storeRoutes(answers).length);
      for (const message of why) expect(isCommandTimeout(message), message).toBe(true);
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
    const logged = server.logs.length;
    const answers = await everyRoute(ann, leaving);
    report(`cluster killed: ${describeAnswers(answers)}`);
    expectOutageAnswers(answers);
    // Many requests at once: the same.
    const burst = await together(
      Array.from({ length: 30 }, (_, i): [string, () => Promise<Answer>] => [
        `session ${i}`,
        () => ann.get('/api/v1/session/'),
      ]),
    );
    for (const { name, answer } of burst) expectUnavailable(name, answer);
    // Still away a while later (the client keeps trying to reconnect meanwhile): the same.
    await sleep(3000);
    expectOutageAnswers(await everyRoute(ann, leaving));
    // Every store request answered from the refused connection: none waited for the time-out.
    const why = unavailableSince(logged);
    report(`cluster killed: the store requests ended by ${JSON.stringify([...new Set(why)])}`);
    expect(why.length).toBe(2 * storeRoutes(answers).length + burst.length);
    for (const message of why) expect(isCommandTimeout(message), message).toBe(false);

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
