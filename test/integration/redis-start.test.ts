/**
 * The Redis adapter's start-up (`openRedis`): it waits until Redis answers, because commands are
 * not queued while the connection is down, and stops with a message naming the variable when
 * Redis cannot be reached, at once when waiting cannot help (a wrong password). Each on a real
 * redis-server of the test's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { openRedis } from '../../src/adapters/redis/redis-start.js';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.js';

describe('openRedis [redis]', () => {
  let redis: TestRedis | undefined;
  let client: RedisClient | undefined;
  afterEach(async () => {
    client?.disconnect();
    await redis?.close();
    client = undefined;
    redis = undefined;
  });

  it('waits for a Redis that answers only later, then serves commands at once', async () => {
    redis = await startTestRedis();
    await redis.kill();
    const opening = openRedis({ url: redis.url, commandTimeoutMs: 500 }, { variable: 'REDIS_URL' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await redis.start();
    client = await opening;
    expect(await client.set('k', 'v')).toBe('OK');
  });

  it('stops naming the variable when nothing answers within the wait', async () => {
    const port = await freePort();
    const started = Date.now();
    await expect(
      openRedis({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 200 }, { variable: 'REDIS_URL' }),
    ).rejects.toThrow(/^REDIS_URL: Redis did not answer within 1 s/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('stops at once on a wrong password: waiting would not cure it', async () => {
    redis = await startTestRedis(['--requirepass', 'sesame-0123']);
    const started = Date.now();
    await expect(
      openRedis(
        { url: `redis://:wrong@127.0.0.1:${redis.port}`, commandTimeoutMs: 2000 },
        { variable: 'REDIS_CLUSTER_NODES' },
      ),
    ).rejects.toThrow(/^REDIS_CLUSTER_NODES: .*WRONGPASS/);
    // The wait would be 10 s (five command time-outs).
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('hands the warning on when the eviction policy cannot be read, and still opens', async () => {
    redis = await startTestRedis(['--rename-command', 'CONFIG', '']);
    const warnings: string[] = [];
    client = await openRedis(
      { url: redis.url, commandTimeoutMs: 1000 },
      { variable: 'REDIS_URL', warn: (message) => warnings.push(message) },
    );
    expect(warnings).toEqual([expect.stringMatching(/^REDIS_URL: could not read Redis's maxmemory-policy/)]);
  });
});
