import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver } from '../../src/boot/gatehouse.js';
import { openTestStore } from '../support/databases.js';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { seedUser, startTestServer, TEST_ENV, TestClient, type TestServer } from '../support/test-server.js';

const PASSWORD = 'correct horse battery staple';

// Issue 10, item 3: Redis lost at run time answers 503 with Retry-After (never a 500, never a 401
// for a live session), /readyz says so, and the service recovers without a restart.
describe('SESSION_STORE=redis when Redis goes away [redis]', () => {
  let redis: TestRedis;
  let server: TestServer;

  beforeAll(async () => {
    redis = await startTestRedis();
    server = await startTestServer({
      env: { SESSION_STORE: 'redis', REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '500' },
    });
    await seedUser(server, { username: 'ann', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while Redis is down, then recovers by itself', async () => {
    const client = new TestClient(server.url);
    expect((await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    expect((await client.get('/readyz')).body).toEqual({ status: 'ready', session_store: 'redis' });

    await redis.kill();
    const checks = [
      await client.get('/api/v1/session/'),
      await client.post('/api/v1/login/', { username: 'ann', password: PASSWORD }),
      await client.post('/api/v1/logout/', {}),
      await client.get('/api/v1/sessions/'),
    ];
    for (const response of checks) {
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Never a hang: each request above was answered (a hang fails on the test's own time-out).
    const ready = await client.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', session_store: 'redis' });

    // The same server comes back (empty: it keeps nothing on disk here): no restart of Gatehouse.
    await redis.start();
    let answer = 0;
    for (let i = 0; i < 50 && answer !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = (await client.get('/readyz')).status;
    }
    expect(answer).toBe(200);
    const again = new TestClient(server.url);
    expect((await again.post('/api/v1/login/', { username: 'ann', password: PASSWORD })).status).toBe(200);
    expect((await again.get('/api/v1/session/')).status).toBe(200);
  });
});

describe('SESSION_STORE=redis at start-up [redis]', () => {
  it('stops with a message naming REDIS_URL when Redis does not answer', async () => {
    const port = await freePort();
    const config = loadConfig({
      ...TEST_ENV,
      SESSION_STORE: 'redis',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_COMMAND_TIMEOUT_MS: '200',
    });
    const sqlClient = await openTestStore('pglite');
    await expect(createGatehouseOver(sqlClient, { config })).rejects.toThrow(
      /^REDIS_URL: Redis did not answer within 1 s/,
    );
  });

  it('authenticates with the password in REDIS_URL, and names REDIS_URL when it is wrong', async () => {
    const redis = await startTestRedis(['--requirepass', 'sesame-0123']);
    try {
      const server = await startTestServer({
        env: { SESSION_STORE: 'redis', REDIS_URL: `redis://:sesame-0123@127.0.0.1:${redis.port}` },
      });
      try {
        await seedUser(server, { username: 'bo', password: PASSWORD, tenantId: 't1', groupId: 'g1' });
        const client = new TestClient(server.url);
        expect((await client.post('/api/v1/login/', { username: 'bo', password: PASSWORD })).status).toBe(
          200,
        );
        expect(await redis.client.dbsize()).toBeGreaterThan(0);
      } finally {
        await server.close();
      }
      const config = loadConfig({
        ...TEST_ENV,
        SESSION_STORE: 'redis',
        REDIS_URL: `redis://:wrong@127.0.0.1:${redis.port}`,
      });
      const sqlClient = await openTestStore('pglite');
      await expect(createGatehouseOver(sqlClient, { config })).rejects.toThrow(/^REDIS_URL: .*WRONGPASS/);
    } finally {
      await redis.close();
    }
  });
});
