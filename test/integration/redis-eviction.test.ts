/**
 * Eviction at the session cap on a real redis-server, interrupted between claiming the surplus and
 * deleting a session: the deletion of one session key is refused (an ACL without that key, as a
 * node lost at that moment would fail it). The session it could not delete must stay findable:
 * ending all of the user's sessions ends it too, and the next eviction finishes the claim.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis, type RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { RedisSessionStore } from '../../src/adapters/redis/redis-session-store.js';
import type { StoredSession } from '../../src/domain/session/session.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

const USER = 'gatehouse';
const PASSWORD = 'sesame-0123';
const T0 = Date.UTC(2030, 0, 1);

function session(userId: string, minute: number): StoredSession {
  const at = new Date(T0 + minute * 60_000);
  return {
    tokenHash: randomBytes(32).toString('hex'),
    handle: randomBytes(16).toString('hex'),
    userId,
    method: 'password',
    createdAt: at,
    lastSeenAt: at,
    expiresAt: new Date(at.getTime() + 12 * 3600_000),
    clientAddress: '192.0.2.10',
    userAgent: 'eviction test',
    sso: null,
  };
}

describe('eviction at the session cap, interrupted [redis]', () => {
  let redis: TestRedis;
  let client: RedisClient;
  let sessions: RedisSessionStore;
  let prefix: string;
  let run = 0;

  beforeAll(async () => {
    // The service's connection logs in as its own user, whose key permissions the test narrows.
    redis = await startTestRedis(['--user', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all']);
    client = connectRedis({
      url: `redis://${USER}:${PASSWORD}@127.0.0.1:${redis.port}`,
      commandTimeoutMs: 1000,
    });
    // Commands are not queued before the connection is up (as in the service, whose start-up waits).
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.close();
  });
  beforeEach(async () => {
    run += 1;
    prefix = `ev${run}:`;
    sessions = new RedisSessionStore(client, { keyPrefix: prefix });
    await redis.client.call('ACL', 'SETUSER', USER, 'resetkeys', '~*');
  });

  /** Three sessions of one user, the first the least recently used; the cap is two. */
  async function overTheCap(userId: string): Promise<StoredSession[]> {
    const three = [session(userId, 0), session(userId, 1), session(userId, 2)];
    for (const one of three) await sessions.create(one, one.expiresAt);
    return three;
  }

  /** Until `restore`, the service's connection may use every key but the session key of `blocked`. */
  async function refuseDeletionOf(blocked: StoredSession, others: StoredSession[]): Promise<void> {
    await redis.client.call(
      'ACL',
      'SETUSER',
      USER,
      'resetkeys',
      `~${prefix}u:*`,
      ...others.map((other) => `~${prefix}s:${other.tokenHash}`),
    );
    // The refusal is real: the session key cannot be read through the service's connection.
    await expect(client.hget(`${prefix}s:${blocked.tokenHash}`, 'r')).rejects.toThrow(/NOPERM/);
  }
  const restore = () => redis.client.call('ACL', 'SETUSER', USER, 'resetkeys', '~*');

  const liveKeys = async () => (await redis.client.keys(`${prefix}s:*`)).sort();

  it('leaves nothing live after ending all of the user sessions', async () => {
    const [oldest, ...others] = await overTheCap('ann');
    await refuseDeletionOf(oldest!, others);
    await expect(sessions.evictBeyond('ann', 2)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await restore();
    // The session whose deletion failed is still live, and still the user's.
    expect(await sessions.findByTokenHash(oldest!.tokenHash)).not.toBeNull();

    expect(await sessions.deleteAllForUser('ann')).toBe(3);
    expect(await liveKeys()).toEqual([]);
    expect(await sessions.findByTokenHash(oldest!.tokenHash)).toBeNull();
    expect(await redis.client.exists(`${prefix}u:{ann}`)).toBe(0);
  });

  it('lists the session meanwhile, and the next eviction finishes the claim', async () => {
    const [oldest, ...others] = await overTheCap('bo');
    await refuseDeletionOf(oldest!, others);
    await expect(sessions.evictBeyond('bo', 2)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await restore();
    const listed = await sessions.listForUser('bo');
    expect(listed.map((one) => one.handle).sort()).toEqual(
      [oldest!, ...others].map((one) => one.handle).sort(),
    );

    const evicted = await sessions.evictBeyond('bo', 2);
    expect(evicted.map((one) => one.handle)).toEqual([oldest!.handle]);
    expect(await liveKeys()).toEqual(others.map((one) => `${prefix}s:${one.tokenHash}`).sort());
    expect(await redis.client.zcard(`${prefix}u:{bo}`)).toBe(2);
    // Nothing more to evict: the cap holds exactly.
    expect(await sessions.evictBeyond('bo', 2)).toEqual([]);
  });
});
