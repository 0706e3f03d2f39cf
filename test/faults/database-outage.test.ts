/**
 * PostgreSQL going away under a running service (a real child process), simulated with a TCP
 * proxy between the service and the shared server: cut (connections reset, new ones refused),
 * stalled (nothing forwarded), restored. The service must answer 503 SERVICE_UNAVAILABLE with
 * Retry-After within a bound, report not-ready, stay up, and resume by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgres, pgEnabled, type TestPgSqlClient } from '../support/databases.js';
import { TestClient } from '../support/test-server.js';
import { type ChildService, startService } from './support/child-service.js';
import { databaseTarget, seedUsers, serviceDatabaseUrl } from './support/postgres.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { report, sleep, timed, waitUntil } from './support/timing.js';

const QUEUE_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 1000;
/**
 * The longest a request may take while the database is away: waiting for a connection
 * (DATABASE_QUEUE_TIMEOUT_MS) plus one statement (DATABASE_STATEMENT_TIMEOUT_MS, and the driver's
 * own read time-out one second later when the server cannot even be told to cancel), plus a margin
 * for two busy cores.
 */
const OUTAGE_BOUND_MS = QUEUE_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 1000 + 1500;
/** One statement on a stalled connection: the driver's read time-out (statement time-out + 1 s), and a margin. */
const STALL_BOUND_MS = STATEMENT_TIMEOUT_MS + 1000 + 1000;
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

function expectUnavailable(response: Awaited<ReturnType<TestClient['get']>>): void {
  expect(response.status).toBe(503);
  expect(response.body?.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

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

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After within the bound when PostgreSQL is cut, and stays up', async () => {
    proxy.cut();
    const answers = await everyKindOfRequest();
    for (const [name, { value, ms }] of Object.entries(answers)) {
      if (name === 'readyz') {
        expect(value.status).toBe(503);
        expect(value.body).toEqual({ status: 'unavailable', session_store: 'sql' });
      } else if (name === 'logout') {
        // Without a cookie, logout needs no store.
        expect(value.status).toBe(200);
      } else {
        expectUnavailable(value);
      }
      expect(ms, name).toBeLessThan(OUTAGE_BOUND_MS);
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
    for (const { value, ms } of burst) {
      expectUnavailable(value);
      expect(ms).toBeLessThan(OUTAGE_BOUND_MS);
    }
    report(
      `database cut: 40 parallel session checks all 503, slowest ${Math.max(...burst.map((b) => b.ms))} ms`,
    );
    await sleep(500);
    expect(service.alive()).toBe(true);
    expect(service.logs.filter((line) => line.msg === 'unhandled error')).toEqual([]);
  });

  it('resumes by itself when PostgreSQL is back, without a restart', async () => {
    proxy.restore();
    const recoveryMs = await waitUntil(async () => (await client.get('/api/v1/session/')).status === 200, {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'recovery after the cut',
    });
    report(`database cut: first 200 ${recoveryMs} ms after the proxy was restored`);
    expect(recoveryMs).toBeLessThan(3000);
    expect((await client.get('/readyz')).status).toBe(200);
    const again = new TestClient(service.url);
    expect((await again.post('/api/v1/login/', { username: 'olga', password: PASSWORD })).status).toBe(200);
    expect(service.alive()).toBe(true);
  });

  it('answers 503 within the bound, not a hang, when PostgreSQL stalls (no byte forwarded)', async () => {
    // Warm connections in the pool, then stall them all.
    await Promise.all(Array.from({ length: 4 }, () => client.get('/api/v1/session/')));
    proxy.pause();
    const answers = await everyKindOfRequest();
    for (const [name, { value, ms }] of Object.entries(answers)) {
      if (name === 'readyz') expect(value.status).toBe(503);
      else if (name === 'logout') expect(value.status).toBe(200);
      else expectUnavailable(value);
      expect(ms, name).toBeLessThan(OUTAGE_BOUND_MS);
    }
    report(
      `database stalled: ${Object.entries(answers)
        .map(([name, { value, ms }]) => `${name} ${value.status} in ${ms} ms`)
        .join(', ')}`,
    );
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => timed(() => client.get('/api/v1/session/'))),
    );
    for (const { value, ms } of burst) {
      expectUnavailable(value);
      expect(ms).toBeLessThan(OUTAGE_BOUND_MS);
    }
    report(
      `database stalled: 20 parallel session checks all 503, slowest ${Math.max(...burst.map((b) => b.ms))} ms`,
    );
    expect(service.alive()).toBe(true);

    proxy.restore();
    const recoveryMs = await waitUntil(async () => (await client.get('/api/v1/session/')).status === 200, {
      timeoutMs: 10_000,
      intervalMs: 25,
      what: 'recovery after the stall',
    });
    report(`database stalled: first 200 ${recoveryMs} ms after the proxy was restored`);
    expect(recoveryMs).toBeLessThan(OUTAGE_BOUND_MS);
    expect((await client.get('/readyz')).status).toBe(200);
    expect(service.logs.filter((line) => line.msg === 'unhandled error')).toEqual([]);
  });

  it('answers 503 within the bound when the database stalls in the middle of a transaction', async () => {
    // The login reads (throttle, user) go through; the stall starts at its transaction's BEGIN.
    proxy.pauseWhenClientSends('BEGIN');
    const { value, ms } = await timed(() =>
      new TestClient(service.url).post('/api/v1/login/', { username: 'olga', password: PASSWORD }),
    );
    expect(proxy.mode).toBe('paused');
    expectUnavailable(value);
    report(`database stalled at BEGIN of a login transaction: ${value.status} in ${ms} ms`);
    // One read time-out, not two: the stalled connection is dropped, not asked to ROLLBACK.
    expect(ms).toBeLessThan(STALL_BOUND_MS);
    proxy.restore();
    await waitUntil(async () => (await client.get('/api/v1/session/')).status === 200, {
      what: 'recovery after the stalled transaction',
    });
    expect(service.alive()).toBe(true);
  });
});

describe.skipIf(!pgEnabled)('connection pool exhaustion [postgres]', () => {
  const POOL_QUEUE_MS = 500;
  const POOL_STATEMENT_MS = 1000;
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

  it('queues for DATABASE_QUEUE_TIMEOUT_MS, then sheds with 503: latency bounded, no unbounded queue', async () => {
    // Every session check now blocks on a lock until its statement time-out: slow requests.
    await db.transaction(async (tx) => {
      await tx.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const waves: Array<Array<{ value: Awaited<ReturnType<TestClient['get']>>; ms: number }>> = [];
      const gauges: Array<{ inUse: number; waiting: number }> = [];
      for (let wave = 0; wave < 3; wave++) {
        const pending = Promise.all(
          Array.from({ length: 100 }, () => timed(() => client.get('/api/v1/session/'))),
        );
        await sleep(200);
        gauges.push(await poolGauges());
        waves.push(await pending);
      }
      const latencies = waves.flat().map((answer) => answer.ms);
      for (const { value } of waves.flat()) expectUnavailable(value);
      // The session lookups of a wave go out as a few batched queries (lookup-batcher.ts): one holds
      // the only connection until its statement time-out, the others are shed once they waited
      // DATABASE_QUEUE_TIMEOUT_MS, and lookups asked for meanwhile wait for one of them. Every
      // answer comes within one queue wait and one statement time-out (plus a margin).
      expect(Math.max(...latencies)).toBeLessThan(POOL_QUEUE_MS + POOL_STATEMENT_MS + 1500);
      for (const gauge of gauges) {
        expect(gauge.inUse).toBeLessThanOrEqual(1);
        // 100 requests waiting, but only a few queries in the pool's queue.
        expect(gauge.waiting).toBeLessThanOrEqual(4);
      }
      const sorted = [...latencies].sort((a, b) => a - b);
      report(
        `pool exhaustion (DATABASE_POOL_SIZE=1, queue ${POOL_QUEUE_MS} ms, statement ${POOL_STATEMENT_MS} ms): ` +
          `3 waves of 100 slow requests, all 503; median ${sorted[150]} ms, slowest ${sorted.at(-1)} ms; ` +
          `waiting at most ${Math.max(...gauges.map((g) => g.waiting))}`,
      );
    });
    // The queue drains to nothing and the service is fine once the database is.
    expect(await poolGauges()).toEqual({ inUse: 0, waiting: 0 });
    expect((await client.get('/api/v1/session/')).status).toBe(200);
    expect(service.alive()).toBe(true);
  });
});
