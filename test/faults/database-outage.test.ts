/**
 * PostgreSQL going away under a running service (a real child process), simulated with a TCP
 * proxy between the service and the shared server: cut (connections reset, new ones refused),
 * stalled (nothing forwarded), restored. The service must answer 503 SERVICE_UNAVAILABLE with
 * Retry-After, report not-ready, stay up, and resume by itself.
 *
 * No elapsed-time bound: what ended each request is read from the service's own log (the
 * `store unavailable` line names the driver's error). A cut database is answered from the refusal,
 * never after a time-out; a stalled one from the pool-queue or read time-out; a service that hung
 * instead would hold the request until the test's own time-out, and fail it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgSqlClient } from '../../src/adapters/sql/pg-sql-client.js';
import { openTestPostgres, pgEnabled, type TestPgSqlClient } from '../support/databases.js';
import { TestClient } from '../support/test-server.js';
import { type ChildService, startService } from './support/child-service.js';
import { databaseTarget, seedUsers, serviceDatabaseUrl } from './support/postgres.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { report, timed, waitUntil } from './support/timing.js';

const QUEUE_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1000;
/** The driver's own read time-out (src/adapters/sql/pg-sql-client.ts): a second past the statement's. */
const READ_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1000;
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

function expectUnavailable(response: Awaited<ReturnType<TestClient['get']>>): void {
  expect(response.status).toBe(503);
  expect(response.body?.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

/** Why the store was unavailable, from the driver's error (src/adapters/sql/store-errors.ts). */
type Reason = 'refused' | 'queue time-out' | 'read time-out' | 'statement time-out';

function reasonOf(err: unknown): Reason | string {
  const { message = '', code } = (err ?? {}) as { message?: string; code?: string };
  // The pool gave up waiting for a connection (DATABASE_QUEUE_TIMEOUT_MS): none was free, or the
  // one it opened never finished its start-up.
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) return 'queue time-out';
  // The driver's own time-out, a second past the statement time-out: no answer at all.
  if (message.includes('Query read timeout')) return 'read time-out';
  // PostgreSQL cancelled the statement (DATABASE_STATEMENT_TIMEOUT_MS).
  if (code === '57014') return 'statement time-out';
  if (
    code === 'ECONNRESET' ||
    code === 'ECONNREFUSED' ||
    message.includes('Connection terminated unexpectedly')
  )
    return 'refused';
  return `${code ?? ''} ${message}`;
}

/** The reasons of the `store unavailable` lines logged from `from` on. */
function reasons(service: ChildService, from: number): Array<Reason | string> {
  return service.logs
    .slice(from)
    .filter((line) => line.msg === 'store unavailable')
    .map((line) => reasonOf(line.err));
}

/**
 * The reasons of the first `count` `store unavailable` lines from `from` on, once they have come:
 * a line reaches this process through the child's stdout, after the answer it was written for.
 */
async function reasonsOfLines(
  service: ChildService,
  from: number,
  count: number,
): Promise<Array<Reason | string>> {
  await waitUntil(() => reasons(service, from).length >= count, { what: `${count} store unavailable lines` });
  return reasons(service, from).slice(0, count);
}

const tally = (list: string[]) =>
  Object.fromEntries([...new Set(list)].map((reason) => [reason, list.filter((r) => r === reason).length]));

describe.skipIf(!pgEnabled)('database outage under a running service [postgres]', () => {
  let proxy: TcpProxy;
  let db: TestPgSqlClient;
  let service: ChildService;
  let client: TestClient;

  beforeAll(async () => {
    proxy = await startTcpProxy(databaseTarget());
    db = await openTestPostgres();
    await seedUsers(db, [{ username: 'olga', password: PASSWORD }]);
    service = await startService({
      DATABASE_URL: serviceDatabaseUrl(db.schema, proxy.port),
      DATABASE_POOL_SIZE: '4',
      DATABASE_QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
    client = new TestClient(service.url);
    const login = await client.post('/api/v1/login/', { username: 'olga', password: PASSWORD });
    expect(login.status).toBe(200);
  });

  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await db?.close();
  });

  /** The four kinds of store work: a read, a login (writes), a transaction, a delete. */
  async function everyKindOfRequest() {
    const other = new TestClient(service.url);
    return {
      session: await timed(() => client.get('/api/v1/session/')),
      readyz: await timed(() => client.get('/readyz')),
      login: await timed(() => other.post('/api/v1/login/', { username: 'olga', password: PASSWORD })),
      password: await timed(() =>
        client.post('/api/v1/password/', { old_password: PASSWORD, new_password: NEW_PASSWORD }),
      ),
      logout: await timed(() => new TestClient(service.url).post('/api/v1/logout/', {})),
    };
  }

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After at once when PostgreSQL is cut, and stays up', async () => {
    const logged = service.logs.length;
    proxy.cut();
    const answers = await everyKindOfRequest();
    for (const [name, { value }] of Object.entries(answers)) {
      if (name === 'readyz') {
        expect(value.status).toBe(503);
        expect(value.body).toEqual({ status: 'unavailable', session_store: 'sql' });
      } else if (name === 'logout') {
        // Without a cookie, logout needs no store.
        expect(value.status).toBe(200);
      } else {
        expectUnavailable(value);
      }
    }
    report(
      `database cut: ${Object.entries(answers)
        .map(([name, { value, ms }]) => `${name} ${value.status} in ${ms} ms`)
        .join(', ')}`,
    );
    // Liveness does not depend on the store.
    expect((await client.get('/healthz')).status).toBe(200);
    // Many requests during the outage: every one answered, nothing crashes.
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => timed(() => client.get('/api/v1/session/'))),
    );
    for (const { value } of burst) expectUnavailable(value);
    report(
      `database cut: 40 parallel session checks all 503, slowest ${Math.max(...burst.map((b) => b.ms))} ms`,
    );
    // Answered from the refusal, every one (session, login, password change and the burst): none
    // waited for a time-out.
    expect(tally(await reasonsOfLines(service, logged, 3 + 40))).toEqual({ refused: 3 + 40 });
    // Still serving after all of it (a crash on a reset connection would have ended the process).
    expect((await client.get('/healthz')).status).toBe(200);
    expect(service.alive()).toBe(true);
    expect(service.logs.filter((line) => line.msg === 'unhandled error')).toEqual([]);
  });

  it('resumes by itself when PostgreSQL is back, without a restart', async () => {
    proxy.restore();
    // The very next request is served: the pool opens a new connection, nothing waits for a retry.
    const { value: first, ms } = await timed(() => client.get('/api/v1/session/'));
    expect(first.status).toBe(200);
    report(`database cut: the first request after the proxy was restored answered 200 in ${ms} ms`);
    expect((await client.get('/readyz')).status).toBe(200);
    const again = new TestClient(service.url);
    expect((await again.post('/api/v1/login/', { username: 'olga', password: PASSWORD })).status).toBe(200);
    expect(service.alive()).toBe(true);
  });

  it('answers 503 after a time-out, not a hang, when PostgreSQL stalls (no byte forwarded)', async () => {
    // Warm connections in the pool, then stall them all.
    await Promise.all(Array.from({ length: 4 }, () => client.get('/api/v1/session/')));
    const logged = service.logs.length;
    proxy.pause();
    const answers = await everyKindOfRequest();
    for (const [name, { value }] of Object.entries(answers)) {
      if (name === 'readyz') expect(value.status).toBe(503);
      else if (name === 'logout') expect(value.status).toBe(200);
      else expectUnavailable(value);
    }
    report(
      `database stalled: ${Object.entries(answers)
        .map(([name, { value, ms }]) => `${name} ${value.status} in ${ms} ms`)
        .join(', ')}`,
    );
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => timed(() => client.get('/api/v1/session/'))),
    );
    for (const { value } of burst) expectUnavailable(value);
    // Each ended by a time-out: the pool's wait for a connection, or the driver's read time-out
    // on a stalled one (PostgreSQL cannot even be told to cancel). Only a time-out ends a
    // stalled request; one that did not fire would have held it until this test's time-out.
    const why = await reasonsOfLines(service, logged, 3 + 20);
    for (const reason of why) expect(['queue time-out', 'read time-out']).toContain(reason);
    report(
      `database stalled: 20 parallel session checks all 503, slowest ${Math.max(...burst.map((b) => b.ms))} ms; ` +
        `ended by ${JSON.stringify(tally(why))}`,
    );
    expect(service.alive()).toBe(true);

    proxy.restore();
    const { value: first, ms } = await timed(() => client.get('/api/v1/session/'));
    expect(first.status).toBe(200);
    report(`database stalled: the first request after the proxy was restored answered 200 in ${ms} ms`);
    expect((await client.get('/readyz')).status).toBe(200);
    expect(service.logs.filter((line) => line.msg === 'unhandled error')).toEqual([]);
  });

  it('answers 503 after one read time-out when the database stalls in the middle of a transaction', async () => {
    const logged = service.logs.length;
    // The login reads (throttle, user) go through; the stall starts at its transaction's BEGIN.
    void proxy.pauseWhenClientSends('BEGIN');
    const { value, ms } = await timed(() =>
      new TestClient(service.url).post('/api/v1/login/', { username: 'olga', password: PASSWORD }),
    );
    expect(proxy.mode).toBe('paused');
    expectUnavailable(value);
    report(`database stalled at BEGIN of a login transaction: ${value.status} in ${ms} ms`);
    expect(await reasonsOfLines(service, logged, 1)).toEqual(['read time-out']);
    proxy.restore();
    expect((await client.get('/api/v1/session/')).status).toBe(200);
    expect(service.alive()).toBe(true);
  });

  it('drops a connection that stalled in a transaction: one read time-out, no ROLLBACK asked of it', async () => {
    // The driver in this process, so its read time-out and the test's timer run in due order.
    const own = await startTcpProxy(databaseTarget());
    const sql = new PgSqlClient({
      connectionString: serviceDatabaseUrl(db.schema, own.port),
      poolSize: 1,
      connectionTimeoutMs: QUEUE_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    try {
      const stalled = own.pauseWhenClientSends('BEGIN');
      const outcome = sql
        .transaction((tx) => tx.query('SELECT 1'))
        .then(
          () => 'committed',
          (error: { code?: string }) => error.code,
        );
      await stalled;
      // The database answers again half a read time-out after the driver gave up on BEGIN: a
      // ROLLBACK asked of that connection (queued behind BEGIN) would now go out, be answered,
      // and be counted here.
      const restored = new Promise<void>((resolve) =>
        setTimeout(() => {
          own.restore();
          resolve();
        }, READ_TIMEOUT_MS * 1.5),
      );
      expect(await outcome).toBe('SERVICE_UNAVAILABLE');
      await restored;
      expect(own.clientMessages('ROLLBACK')).toBe(0);
    } finally {
      await sql.close();
      await own.close();
    }
  });
});

describe.skipIf(!pgEnabled)('connection pool exhaustion [postgres]', () => {
  const POOL_QUEUE_MS = 500;
  /**
   * Well past the queue time-out: a wave's later queries, queued behind the first, are shed by the
   * service's queue time-out while PostgreSQL still holds the first (two processes' timers, so a
   * wide gap, not an order).
   */
  const POOL_STATEMENT_MS = 2000;
  let db: TestPgSqlClient;
  let service: ChildService;
  let client: TestClient;

  beforeAll(async () => {
    db = await openTestPostgres();
    await seedUsers(db, [{ username: 'pia', password: PASSWORD }]);
    service = await startService({
      DATABASE_URL: serviceDatabaseUrl(db.schema),
      DATABASE_POOL_SIZE: '1',
      METRICS_ON_MAIN_PORT: 'true',
      DATABASE_QUEUE_TIMEOUT_MS: String(POOL_QUEUE_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(POOL_STATEMENT_MS),
    });
    client = new TestClient(service.url);
    expect((await client.post('/api/v1/login/', { username: 'pia', password: PASSWORD })).status).toBe(200);
  });

  afterAll(async () => {
    await service?.stop();
    await db?.close();
  });

  async function poolGauges(): Promise<{ inUse: number; waiting: number }> {
    const text = (await client.get('/metrics')).text;
    const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { inUse: read('gatehouse_store_pool_in_use'), waiting: read('gatehouse_store_pool_waiting') };
  }

  /** Statements PostgreSQL has waiting for the sessions table's lock. */
  async function blockedOnSessions(): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_locks WHERE relation = to_regclass($1) AND NOT granted',
      [`${db.schema}.sessions`],
    );
    return rows[0]!.n;
  }

  it('queues for DATABASE_QUEUE_TIMEOUT_MS, then sheds with 503: each request ended by a time-out, no unbounded queue', async () => {
    const logged = service.logs.length;
    // Every session check now blocks on a lock until its statement time-out: slow requests.
    await db.transaction(async (tx) => {
      await tx.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const waves: Array<Array<{ value: Awaited<ReturnType<TestClient['get']>>; ms: number }>> = [];
      const gauges: Array<{ inUse: number; waiting: number }> = [];
      for (let wave = 0; wave < 3; wave++) {
        // One request first: its lookup takes the only connection and waits on the lock (seen in
        // PostgreSQL, not guessed by a sleep); then 99 more, whose lookups queue behind it.
        const first = timed(() => client.get('/api/v1/session/'));
        await waitUntil(async () => (await blockedOnSessions()) === 1, {
          intervalMs: 10,
          what: "the wave's first lookup waiting on the lock",
        });
        const rest = Promise.all(
          Array.from({ length: 99 }, () => timed(() => client.get('/api/v1/session/'))),
        );
        gauges.push(await poolGauges());
        waves.push([await first, ...(await rest)]);
      }
      for (const { value } of waves.flat()) expectUnavailable(value);
      // The session lookups of a wave go out as a few batched queries (lookup-batcher.ts): one holds
      // the only connection until its statement time-out, the others are shed once they waited
      // DATABASE_QUEUE_TIMEOUT_MS, and lookups asked for meanwhile wait for one of them. So every
      // request ends by one of the two time-outs, and both come: without the queue time-out the
      // queries would take the connection one after the other, each ended by PostgreSQL.
      const why = await reasonsOfLines(service, logged, 300);
      expect(tally(why)).toEqual({
        'queue time-out': expect.any(Number),
        'statement time-out': expect.any(Number),
      });
      for (const gauge of gauges) {
        expect(gauge.inUse).toBeLessThanOrEqual(1);
        // 100 requests waiting, but only a few queries in the pool's queue.
        expect(gauge.waiting).toBeLessThanOrEqual(4);
      }
      const latencies = waves.flat().map((answer) => answer.ms);
      const sorted = [...latencies].sort((a, b) => a - b);
      report(
        `pool exhaustion (DATABASE_POOL_SIZE=1, queue ${POOL_QUEUE_MS} ms, statement ${POOL_STATEMENT_MS} ms): ` +
          `3 waves of 100 slow requests, all 503, ended by ${JSON.stringify(tally(why))}; ` +
          `median ${sorted[150]} ms, slowest ${sorted.at(-1)} ms; waiting at most ${Math.max(...gauges.map((g) => g.waiting))}`,
      );
    });
    // The queue drains to nothing and the service is fine once the database is.
    expect(await poolGauges()).toEqual({ inUse: 0, waiting: 0 });
    expect((await client.get('/api/v1/session/')).status).toBe(200);
    expect(service.alive()).toBe(true);
  });
});
