/**
 * SESSION_STORE=redis on a Redis that would evict keys when full: start-up stops, naming the policy
 * and the variable; where CONFIG is disabled (as on many managed Redis services) it starts and
 * warns that the policy could not be checked. Each on a real redis-server of the test's own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/boot/config/config.js';
import { createGatehouseOver } from '../../src/boot/gatehouse.js';
import { openTestStore } from '../support/databases.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startTestServer, TEST_ENV, type TestServer } from '../support/test-server.js';

const UNCHECKED = 'redis_eviction_policy_unchecked';

describe('SESSION_STORE=redis and maxmemory-policy [redis]', () => {
  let redis: TestRedis | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    await redis?.close();
    server = undefined;
    redis = undefined;
  });

  async function startOn(redisUrl: string) {
    const config = loadConfig({ ...TEST_ENV, SESSION_STORE: 'redis', REDIS_URL: redisUrl });
    return createGatehouseOver(await openTestStore('pglite'), { config });
  }

  for (const policy of ['allkeys-lru', 'volatile-lru']) {
    it(`refuses to start on maxmemory-policy ${policy}, naming it and REDIS_URL`, async () => {
      redis = await startTestRedis(['--maxmemory', '64mb', '--maxmemory-policy', policy]);
      await expect(startOn(redis.url)).rejects.toThrow(
        new RegExp(
          `^REDIS_URL: Redis evicts keys when its memory is full \\(maxmemory-policy ${policy} on 127\\.0\\.0\\.1:${redis.port}\\).*noeviction`,
        ),
      );
    });
  }

  it('refuses a policy set at run time too: it is read from the server, not from its start-up arguments', async () => {
    redis = await startTestRedis();
    await redis.client.config('SET', 'maxmemory-policy', 'allkeys-lfu');
    await expect(startOn(redis.url)).rejects.toThrow(/maxmemory-policy allkeys-lfu/);
  });

  it('starts on noeviction without a warning', async () => {
    redis = await startTestRedis(['--maxmemory-policy', 'noeviction']);
    server = await startTestServer({ env: { SESSION_STORE: 'redis', REDIS_URL: redis.url } });
    expect(server.logs.filter((line) => line.event === UNCHECKED)).toEqual([]);
  });

  it('starts where CONFIG is disabled, warning that the policy could not be checked', async () => {
    redis = await startTestRedis(['--rename-command', 'CONFIG', '']);
    server = await startTestServer({ env: { SESSION_STORE: 'redis', REDIS_URL: redis.url } });
    const warnings = server.logs.filter((line) => line.event === UNCHECKED);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe(40);
    expect(String(warnings[0]!.msg)).toMatch(
      /^REDIS_URL: could not read Redis's maxmemory-policy on 127\.0\.0\.1:\d+ \(.*unknown command.*\); make sure it is noeviction/,
    );
  });
});
