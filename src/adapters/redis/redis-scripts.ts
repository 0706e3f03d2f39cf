import type { RedisClient } from './redis-connection.js';

/**
 * The score of a user's index member claimed for eviction: below every last-seen time, so it is
 * neither counted as live nor chosen again; a session touched meanwhile gets its last-seen back.
 */
const CLAIMED = -1;

/**
 * The Lua scripts Gatehouse runs. Each touches the keys of one hash slot only (the session key, or
 * one user's index), so none can fail with CROSSSLOT on a cluster; ioredis sends them by SHA and
 * loads them on a node that does not know them yet (after a failover included).
 */
const SCRIPTS = {
  /** KEYS[1] session; ARGV: record, last-seen ms, tokens ('' for none), ttl ms. */
  gatehouseSessionCreate: {
    numberOfKeys: 1,
    lua: `
      redis.call('HSET', KEYS[1], 'r', ARGV[1], 'l', ARGV[2])
      if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 't', ARGV[3]) end
      redis.call('PEXPIRE', KEYS[1], ARGV[4])
      return 1`,
  },
  /**
   * KEYS[1] session. Deletes it and returns {record, last-seen, tokens} (tokens only on an SSO
   * session), or nil when absent: the creation writes record and last-seen together.
   */
  gatehouseSessionTake: {
    numberOfKeys: 1,
    lua: `
      local v = redis.call('HMGET', KEYS[1], 'r', 'l', 't')
      if not v[1] then return false end
      redis.call('DEL', KEYS[1])
      return v`,
  },
  /**
   * KEYS[1] session; ARGV: now ms, ttl ms (until the session's keep-until). Moves last-seen
   * forward only, and the key's time to live with it; returns the record when it moved, so the
   * caller can move the user's index too.
   */
  gatehouseSessionTouch: {
    numberOfKeys: 1,
    lua: `
      local v = redis.call('HMGET', KEYS[1], 'r', 'l')
      if not v[1] then return false end
      if tonumber(ARGV[1]) <= tonumber(v[2]) then return false end
      redis.call('HSET', KEYS[1], 'l', ARGV[1])
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return v[1]`,
  },
  /**
   * KEYS[1] an index (a user's sorted set, or an SSO set); ARGV: ttl ms. Keeps the index at least
   * as long as its newest member can live.
   */
  gatehouseIndexKeep: {
    numberOfKeys: 1,
    lua: `
      if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
      return 1`,
  },
  /**
   * KEYS[1] a user's index; ARGV: keep. Claims the members beyond the \`keep\` most recently used
   * (lowest last-seen first, the oldest created first among equals: members begin with the
   * creation time) by scoring them CLAIMED, and returns every claimed member, those of an earlier
   * eviction that did not finish included. A claimed member stays in the index until its session
   * is deleted, so a session whose deletion failed is still found by "end all". One script per
   * user's slot: concurrent logins of one user are serialised, so each surplus session is claimed
   * exactly once (a session that two callers both try to end is ended, and returned, once).
   */
  gatehouseUserEvict: {
    numberOfKeys: 1,
    lua: `
      local surplus = redis.call('ZCOUNT', KEYS[1], '0', '+inf') - tonumber(ARGV[1])
      if surplus > 0 then
        for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '0', '+inf', 'LIMIT', 0, surplus)) do
          redis.call('ZADD', KEYS[1], ${CLAIMED}, member)
        end
      end
      return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(0')`,
  },
  /**
   * KEYS[1] a throttle key; ARGV: now ms, limit, window ms. Takes one attempt from the key's
   * budget atomically: {1, used} granted, {0, retry-at ms} refused. The window begins with the
   * key's first attempt; once it has passed, the count starts over.
   */
  gatehouseThrottleReserve: {
    numberOfKeys: 1,
    lua: `
      local now = tonumber(ARGV[1])
      local window = tonumber(ARGV[3])
      local start = tonumber(redis.call('HGET', KEYS[1], 's'))
      if start == nil or now >= start + window then
        redis.call('HSET', KEYS[1], 's', ARGV[1], 'n', 1)
        redis.call('PEXPIRE', KEYS[1], window + 60000)
        return {1, 1}
      end
      local used = tonumber(redis.call('HGET', KEYS[1], 'n'))
      if used >= tonumber(ARGV[2]) then return {0, start + window} end
      used = redis.call('HINCRBY', KEYS[1], 'n', 1)
      local ttl = start + window - now + 60000
      if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
      return {1, used}`,
  },
  /** KEYS[1] a throttle key. Gives one attempt back, never below zero. */
  gatehouseThrottleRelease: {
    numberOfKeys: 1,
    lua: `
      local used = tonumber(redis.call('HGET', KEYS[1], 'n'))
      if used and used > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
      return 1`,
  },
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** The client with Gatehouse's scripts defined on it (idempotent: defining twice is harmless). */
export function withScripts(client: RedisClient): ScriptedRedis {
  for (const [name, definition] of Object.entries(SCRIPTS)) {
    if (!(name in client)) client.defineCommand(name, definition);
  }
  return client as unknown as ScriptedRedis;
}

type ScriptCall = (...args: Array<string | number>) => Promise<unknown>;
type ScriptStep = (...args: Array<string | number>) => ScriptedPipeline;
/** A pipeline that knows the scripts too (ioredis adds defined commands to pipelines). */
export type ScriptedPipeline = ReturnType<RedisClient['pipeline']> & Record<ScriptName, ScriptStep>;
export type ScriptedRedis = RedisClient & Record<ScriptName, ScriptCall>;

/** A pipeline on the client that can carry the scripts. */
export function scriptedPipeline(redis: ScriptedRedis): ScriptedPipeline {
  return redis.pipeline() as unknown as ScriptedPipeline;
}
