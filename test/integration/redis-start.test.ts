/**
 * The Redis adapter's start-up (`openRedis`): it waits until Redis answers, because commands are
 * not queued while the connection is down, and stops with a message naming the variable when
 * Redis cannot be reached, at once when waiting cannot help (a wrong password). Each on a real
 * redis-server of the test's own.
 */
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { openRedis } from '../../src/adapters/redis/redis-start.js';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.js';

/**
 * A listener on `port` that closes every connection at once (a Redis still starting, or a wrong
 * address), counting them; after `times` connections it stops listening, so the port is free again.
 */
async function doorThatCloses(port: number, times: number) {
  let attempts = 0;
  let turnedAwayEnough: () => void = () => undefined;
  const turnedAway = new Promise<void>((resolve) => {
    turnedAwayEnough = resolve;
  });
  const server = createServer((socket: Socket) => {
    socket.destroy();
    attempts += 1;
    if (attempts === times) server.close(() => turnedAwayEnough());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    turnedAway,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

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
    // Redis comes back only once start-up has been turned away twice: it must have waited.
    const door = await doorThatCloses(redis.port, 2);
    const opening = openRedis({ url: redis.url, commandTimeoutMs: 2000 }, { variable: 'REDIS_URL' });
    await door.turnedAway;
    await redis.start();
    client = await opening;
    expect(await client.set('k', 'v')).toBe('OK');
  });

  it('stops naming the variable when nothing answers within the wait, having tried again', async () => {
    const door = await doorThatCloses(await freePort(), Number.POSITIVE_INFINITY);
    try {
      await expect(
        openRedis(
          { url: `redis://127.0.0.1:${door.port}`, commandTimeoutMs: 200 },
          { variable: 'REDIS_URL' },
        ),
      ).rejects.toThrow(/^REDIS_URL: Redis did not answer within 1 s/);
      expect(door.attempts()).toBeGreaterThan(1);
    } finally {
      await door.close();
    }
  });

  it('stops at once on a wrong password: waiting would not cure it', async () => {
    redis = await startTestRedis(['--requirepass', 'sesame-0123']);
    await expect(
      openRedis(
        { url: `redis://:wrong@127.0.0.1:${redis.port}`, commandTimeoutMs: 2000 },
        { variable: 'REDIS_CLUSTER_NODES' },
      ),
    ).rejects.toThrow(/^REDIS_CLUSTER_NODES: .*WRONGPASS/);
    // Waiting (ten seconds here) would have reconnected and been refused about twice a second
    // (20 refusals, measured); stopping at once leaves the first refusal and the reconnections
    // ioredis had under way when start-up gave up (3, measured).
    const refusals = /^errorstat_WRONGPASS:count=(\d+)/m.exec(await redis.client.info('errorstats'));
    expect(Number(refusals?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(refusals?.[1])).toBeLessThan(10);
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
