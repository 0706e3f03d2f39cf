/**
 * Two service processes on one PostgreSQL schema, as behind a load balancer, with their sessions
 * in the database or on one Redis Cluster: sessions and login throttling are shared through the store, a revocation on one is seen by the other at once, and
 * two processes starting together on an empty schema apply each migration once.
 */
import { availableParallelism } from 'node:os';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTestPostgres,
  pgEnabled,
  type TestPgSqlClient,
  testMigrations,
  testRedisClusterNodes,
} from '../support/databases.js';
import { TestClient } from '../support/test-server.js';
import { type ChildService, startService } from './support/child-service.js';
import { seedUsers, serviceDatabaseUrl } from './support/postgres.js';
import { report, timed } from './support/timing.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

/**
 * Where the two instances keep their sessions and throttle counters: the database itself, or a
 * Redis Cluster beside it (users stay in the database), with the attempts a throttle key spent.
 */
interface SharedSessions {
  label: 'postgres' | 'redis-cluster';
  env(): Record<string, string>;
  throttleFailures(db: TestPgSqlClient, key: string): Promise<number>;
  close(): void;
}

function sessionsInDatabase(): SharedSessions {
  return {
    label: 'postgres',
    env: () => ({}),
    throttleFailures: async (db, key) => {
      const { rows } = await db.query<{ failures: number }>(
        'SELECT failures FROM login_throttle WHERE key = $1',
        [key],
      );
      return rows[0]?.failures ?? 0;
    },
    close: () => undefined,
  };
}

function sessionsOnCluster(): SharedSessions {
  const prefix = `two${process.pid}:`;
  let client: Cluster | null = null;
  const nodes = () => testRedisClusterNodes();
  return {
    label: 'redis-cluster',
    env: () => ({ SESSION_STORE: 'redis', REDIS_CLUSTER_NODES: nodes(), REDIS_KEY_PREFIX: prefix }),
    throttleFailures: async (_db, key) => {
      client ??= new Cluster(
        nodes()
          .split(',')
          .map((node) => ({ host: '127.0.0.1', port: Number(node.split(':')[1]) })),
      );
      return Number((await client.hget(`${prefix}t:${key}`, 'n')) ?? 0);
    },
    close: () => client?.disconnect(),
  };
}

for (const sessions of [sessionsInDatabase(), sessionsOnCluster()]) {
  describe.skipIf(!pgEnabled)(`two instances on one database [postgres] sessions [${sessions.label}]`, () => {
    let db: TestPgSqlClient;
    let a: ChildService;
    let b: ChildService;

    beforeAll(async () => {
      db = await openTestPostgres();
      await seedUsers(db, [
        { username: 'ann', password: PASSWORD },
        { username: 'bob', password: PASSWORD },
        { username: 'cid', password: PASSWORD },
      ]);
      const env = { DATABASE_URL: serviceDatabaseUrl(db.schema), LOGIN_MAX_FAILURES: '3', ...sessions.env() };
      [a, b] = await Promise.all([startService(env), startService(env)]);
    });

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      sessions.close();
      await db?.close();
    });

    const on = (service: ChildService, token: string) =>
      new TestClient(service.url).get('/api/v1/session/', { cookie: `sessionid=${token}` });

    it('both name the session store they share, and the transport', () => {
      expect(a.startup.session_store).toBe(sessions.label === 'postgres' ? 'sql' : 'redis-cluster');
      expect(b.startup.session_store).toBe(a.startup.session_store);
      expect(a.startup.transport).toBe('koa');
    });

    it('hashes on one thread per core unless UV_THREADPOOL_SIZE says otherwise (the process entry)', async () => {
      expect(a.startup.hashing_threads).toBe(Math.max(2, availableParallelism()));
      // A third instance, on the other transport, beside the two.
      const three = await startService({
        DATABASE_URL: serviceDatabaseUrl(db.schema),
        UV_THREADPOOL_SIZE: '3',
        HTTP_TRANSPORT: 'fastify',
        ...sessions.env(),
      });
      try {
        expect(three.startup.hashing_threads).toBe(3);
        expect(three.startup.transport).toBe('fastify');
        expect((await new TestClient(three.url).get('/healthz')).status).toBe(200);
      } finally {
        await three.stop();
      }
    });

    it('logs in on A, serves the session on B, logs out on B, and A refuses it at once', async () => {
      const client = new TestClient(a.url);
      expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
      const token = client.session!;
      const onB = await on(b, token);
      expect(onB.status).toBe(200);
      expect(onB.body.profile.username).toBe('ann');
      const logout = await new TestClient(b.url).request('POST', '/api/v1/logout/', {
        json: {},
        headers: { cookie: `sessionid=${token}` },
      });
      expect(logout.status).toBe(200);
      // The very next request on A, no delay: refused (nothing is cached in a process).
      const { value, ms } = await timed(() => on(a, token));
      expect(value.status).toBe(401);
      expect(value.body.code).toBe('NOT_AUTHENTICATED');
      expect((await on(b, token)).status).toBe(401);
      report(
        `two instances, sessions on ${sessions.label}: logout on B refused on A by the next request (${ms} ms)`,
      );
    });

    it('ends on A the sessions of a password changed on B', async () => {
      const onA = new TestClient(a.url);
      const onB = new TestClient(b.url);
      expect((await onA.post('/api/v1/login/', { username: 'bob', password: PASSWORD })).status).toBe(200);
      expect((await onB.post('/api/v1/login/', { username: 'bob', password: PASSWORD })).status).toBe(200);
      const change = await onB.post('/api/v1/password/', {
        old_password: PASSWORD,
        new_password: NEW_PASSWORD,
      });
      expect(change.status).toBe(200);
      expect((await onA.get('/api/v1/session/')).status).toBe(401);
      expect((await on(a, onB.session!)).status).toBe(200);
      expect(
        (await new TestClient(a.url).post('/api/v1/login/', { username: 'bob', password: PASSWORD })).status,
      ).toBe(401);
    });

    it('shares login throttling: failures on A count on B', async () => {
      for (let i = 0; i < 3; i++) {
        const response = await new TestClient(a.url).post('/api/v1/login/', {
          username: 'cid',
          password: 'wrong!',
        });
        expect(response.status).toBe(401);
      }
      // LOGIN_MAX_FAILURES=3 reached on A: B refuses even the right password.
      const onB = await new TestClient(b.url).post('/api/v1/login/', { username: 'cid', password: PASSWORD });
      expect(onB.status).toBe(429);
      expect(onB.body.code).toBe('TOO_MANY_ATTEMPTS');
      expect(Number(onB.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await sessions.throttleFailures(db, 'user:cid')).toBe(3);
    });
  });
}

describe.skipIf(!pgEnabled)('instances starting together on an empty database [postgres]', () => {
  let db: TestPgSqlClient;
  const services: ChildService[] = [];

  beforeAll(async () => {
    db = await openTestPostgres({ migrated: false });
  });

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await db?.close();
  });

  it('both come up; every migration is applied exactly once', async () => {
    const env = { DATABASE_URL: serviceDatabaseUrl(db.schema) };
    const { value: started, ms } = await timed(() => Promise.all([startService(env), startService(env)]));
    services.push(...started);
    for (const service of started)
      expect((await new TestClient(service.url).get('/readyz')).status).toBe(200);
    const { rows } = await db.query<{ name: string; n: number }>(
      'SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name',
    );
    expect(rows).toEqual(testMigrations().map((migration) => ({ name: migration.name, n: 1 })));
    // And they work on the schema they built together.
    await seedUsers(db, [{ username: 'dee', password: PASSWORD }]);
    const client = new TestClient(started[0]!.url);
    expect((await client.post('/api/v1/login/', { username: 'dee', password: PASSWORD })).status).toBe(200);
    expect((await on(started[1]!, client.session!)).status).toBe(200);
    report(
      `two instances started together on an empty schema: both ready in ${ms} ms, each migration applied once`,
    );
  });

  const on = (service: ChildService, token: string) =>
    new TestClient(service.url).get('/api/v1/session/', { cookie: `sessionid=${token}` });
});
