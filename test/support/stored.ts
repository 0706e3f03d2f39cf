/**
 * What a test service's session store holds, read directly (beneath the ports), whichever store
 * it is: the SQL tables, or the Redis keys under the service's prefix.
 */
import { Redis } from 'ioredis';
import { MemorySessionStore } from '../../src/adapters/memory/memory-session-store.js';
import { MemoryThrottleStore } from '../../src/adapters/memory/memory-throttle-store.js';
import type { TestServer } from './test-server.js';

/** The in-memory stores of a service with SESSION_STORE=memory, or null. */
function memoryStores(
  server: TestServer,
): { sessions: MemorySessionStore; throttle: MemoryThrottleStore } | null {
  const { sessions, throttle } = server.gatehouse.store;
  return sessions instanceof MemorySessionStore && throttle instanceof MemoryThrottleStore
    ? { sessions, throttle }
    : null;
}

async function withRedis<T>(
  server: TestServer,
  work: (redis: Redis, prefix: string) => Promise<T>,
): Promise<T> {
  const settings = server.config.sessionStore;
  if (settings.kind !== 'redis' || !settings.url) throw new Error('not a single-server Redis session store');
  const redis = new Redis(settings.url);
  try {
    return await work(redis, settings.keyPrefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * Every stored session as text, with the id the store files it under (the token's SHA-256). The
 * text is JSON with `token_hash` and `last_seen_at` on every store (the SQL row; on Redis the
 * key's fields, its last-seen field renamed), so tests can compare rows without the bookkeeping.
 */
export async function storedSessionsAsText(server: TestServer): Promise<Array<{ id: string; text: string }>> {
  if (server.config.sessionStore.kind === 'sql') {
    const { rows } = await server.sql.query<{ token_hash: string; row: string }>(
      'SELECT token_hash, row_to_json(s)::text AS row FROM sessions s',
    );
    return rows.map((row) => ({ id: row.token_hash, text: row.row }));
  }
  const memory = memoryStores(server);
  if (memory) {
    // The last-seen field renamed, as on Redis, so a test can leave it out by that one name.
    return memory.sessions.held().map(({ lastSeenAt, ...session }) => ({
      id: session.tokenHash,
      text: JSON.stringify({ token_hash: session.tokenHash, ...session, last_seen_at: lastSeenAt }),
    }));
  }
  return withRedis(server, async (redis, prefix) => {
    const keys = await redis.keys(`${prefix}s:*`);
    return Promise.all(
      keys.map(async (key) => {
        const { l, ...fields } = await redis.hgetall(key);
        const tokenHash = key.slice(`${prefix}s:`.length);
        return { id: tokenHash, text: JSON.stringify({ token_hash: tokenHash, ...fields, last_seen_at: l }) };
      }),
    );
  });
}

/** How many sessions the store holds, of every user. */
export async function storedSessionCount(server: TestServer): Promise<number> {
  return (await storedSessionsAsText(server)).length;
}

/** The attempts a throttle key has spent in its window (0 when it has none). */
export async function throttleAttempts(server: TestServer, key: string): Promise<number> {
  if (server.config.sessionStore.kind === 'sql') {
    const { rows } = await server.sql.query<{ failures: number }>(
      'SELECT failures FROM login_throttle WHERE key = $1',
      [key],
    );
    return rows[0]?.failures ?? 0;
  }
  const memory = memoryStores(server);
  if (memory) return memory.throttle.budgets.get(key)?.used ?? 0;
  return withRedis(server, async (redis, prefix) =>
    Number((await redis.hget(`${prefix}t:${key}`, 'n')) ?? 0),
  );
}

/** Every throttle key beginning with `start`, with the attempts it has spent. */
export async function throttleKeys(
  server: TestServer,
  start: string,
): Promise<Array<{ key: string; failures: number }>> {
  if (server.config.sessionStore.kind === 'sql') {
    const { rows } = await server.sql.query<{ key: string; failures: number }>(
      'SELECT key, failures FROM login_throttle WHERE starts_with(key, $1)',
      [start],
    );
    return rows;
  }
  const memory = memoryStores(server);
  if (memory) {
    return [...memory.throttle.budgets]
      .filter(([key]) => key.startsWith(start))
      .map(([key, budget]) => ({ key, failures: budget.used }));
  }
  return withRedis(server, async (redis, prefix) => {
    const keys = await redis.keys(`${prefix}t:${start}*`);
    return Promise.all(
      keys.map(async (key) => ({
        key: key.slice(`${prefix}t:`.length),
        failures: Number((await redis.hget(key, 'n')) ?? 0),
      })),
    );
  });
}
