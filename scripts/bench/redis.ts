/**
 * The Redis side of the benchmark: a redis-server or a 3+3 Redis Cluster of the run's own (the test
 * harness's, loopback ports, nothing on disk), the Redis ceiling (the service's own client reading
 * one session key at the session phase's concurrency), memory per session from `INFO memory`, and
 * the failover window when a cluster master is killed under load.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedis, type RedisClient } from '../../src/adapters/redis/redis-connection.js';
import { RedisSessionStore } from '../../src/adapters/redis/redis-session-store.js';
import { type StoredSession, sessionKeepUntil } from '../../src/domain/session/session.js';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import { startTestCluster, type TestCluster } from '../../test/support/redis-cluster.js';
import { startTestRedis, type TestRedis } from '../../test/support/redis-server.js';
import { hammer, type PgCeiling } from './ceilings.js';
import { keepAliveAgent, request } from './load.js';
import { type LatencySummary, round, Samples } from './stats.js';

export type RedisKind = 'redis' | 'redis-cluster';

/** The key prefix the benchmarked service uses (REDIS_KEY_PREFIX). */
export const BENCH_PREFIX = 'bench:';

export interface BenchRedis {
  kind: RedisKind;
  /** SESSION_STORE and the address variables for the service. */
  env: Record<string, string>;
  /** A client like the service's own (src/adapters/redis/redis-connection.ts), connected. */
  connect(): Promise<RedisClient>;
  /** The ports of the nodes that hold data once (the server, or each cluster master). */
  masterPorts(): Promise<number[]>;
  cluster: TestCluster | null;
  close(): Promise<void>;
}

/** The service's client queues nothing while it connects: wait until it is ready. */
async function ready(client: RedisClient): Promise<RedisClient> {
  client.on('error', () => undefined);
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  return client;
}

export async function startBenchRedis(kind: RedisKind): Promise<BenchRedis> {
  if (kind === 'redis') {
    const server: TestRedis = await startTestRedis();
    return {
      kind,
      env: { SESSION_STORE: 'redis', REDIS_URL: server.url, REDIS_KEY_PREFIX: BENCH_PREFIX },
      connect: () => ready(connectRedis({ url: server.url, commandTimeoutMs: 2000 })),
      masterPorts: async () => [server.port],
      cluster: null,
      close: () => server.close(),
    };
  }
  const cluster = await startTestCluster();
  return {
    kind,
    env: {
      SESSION_STORE: 'redis',
      REDIS_CLUSTER_NODES: cluster.nodes.join(','),
      REDIS_KEY_PREFIX: BENCH_PREFIX,
    },
    connect: () => ready(connectRedis({ clusterNodes: cluster.nodes, commandTimeoutMs: 2000 })),
    masterPorts: async () => {
      const slots = (await cluster.client.call('CLUSTER', 'SLOTS')) as Array<
        [number, number, [string, number]]
      >;
      return [...new Set(slots.map((range) => range[2][1]))];
    },
    cluster,
    close: () => cluster.close(),
  };
}

/** The ceiling of the session phase's store share: HMGET of a seeded session's record and last-seen, as a lookup does. */
export async function redisCeiling(options: {
  redis: BenchRedis;
  durationS: number;
  concurrency: number;
  tokenHashes: string[];
}): Promise<PgCeiling> {
  const client = await options.redis.connect();
  try {
    const keys = options.tokenHashes.map((hash) => `${BENCH_PREFIX}s:${hash}`);
    const result = await hammer(options.durationS, options.concurrency, async (index) => {
      const [record] = await client.hmget(keys[index % keys.length]!, 'r', 'l');
      if (!record) throw new Error('seeded session not found in Redis');
    });
    return { pool_size: 1, concurrency: options.concurrency, ...result };
  } finally {
    client.disconnect();
  }
}

async function usedMemory(ports: number[]): Promise<number> {
  let total = 0;
  for (const port of ports) {
    const node = new Redis({ port, host: '127.0.0.1' });
    try {
      total += Number(/used_memory:(\d+)/.exec(await node.info('memory'))?.[1] ?? 0);
    } finally {
      node.disconnect();
    }
  }
  return total;
}

export interface RedisMemory {
  sessions: number;
  users: number;
  /** Sum over the nodes that hold the data once (replicas hold a copy each). */
  used_memory_before_mb: number;
  used_memory_after_mb: number;
  bytes_per_session: number;
  create_s: number;
}

/**
 * Memory per session: `count` password sessions (the service's own repository, the records a login
 * writes: user agent, client address, 10 sessions a user) added to the store, `INFO memory` before
 * and after.
 */
export async function redisMemoryPerSession(redis: BenchRedis, count: number): Promise<RedisMemory> {
  const ports = await redis.masterPorts();
  const client = await redis.connect();
  try {
    const repository = new RedisSessionStore(client, {
      keyPrefix: BENCH_PREFIX,
      ...(redis.cluster ? { replicaAcks: { replicas: 1, timeoutMs: 1000 } } : {}),
    });
    const before = await usedMemory(ports);
    const started = performance.now();
    const users = Math.max(1, Math.ceil(count / 10));
    const now = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < count) {
          const index = next++;
          const session: StoredSession = {
            tokenHash: hashSessionToken(randomBytes(32).toString('base64url')),
            handle: randomBytes(16).toString('base64url'),
            userId: `00000000-0000-4000-8000-${String(index % users).padStart(12, '0')}`,
            method: 'password',
            createdAt: new Date(now),
            lastSeenAt: new Date(now),
            expiresAt: new Date(now + 12 * 3600_000),
            clientAddress: '203.0.113.17',
            userAgent:
              'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
            sso: null,
          };
          await repository.create(session, sessionKeepUntil(session, 1800));
        }
      }),
    );
    const createS = round((performance.now() - started) / 1000);
    const after = await usedMemory(ports);
    return {
      sessions: count,
      users,
      used_memory_before_mb: round(before / 1048576, 1),
      used_memory_after_mb: round(after / 1048576, 1),
      bytes_per_session: Math.round((after - before) / count),
      create_s: createS,
    };
  } finally {
    client.disconnect();
  }
}

export interface FailoverWindow {
  killed_master_port: number;
  /** From the kill until a session stored on that master was answered 200 again. */
  victim_session_back_ms: number | null;
  /** From the kill until the last answer that was not 200 (any session). */
  last_non_200_ms: number;
  /** The slowest answer of the run: a request held while the cluster fails over. */
  slowest_answer_ms: number;
  statuses: Record<string, number>;
  /** A live session answered 401 (must be 0: a 401 logs a portal's user out). */
  live_session_401: number;
  latency_ms: LatencySummary;
}

/**
 * Kills (SIGKILL) the master holding the first session's key while `lanes` clients read sessions
 * in a loop for `durationS`; the cluster's replica takes over by itself.
 */
export async function failoverWindow(options: {
  redis: BenchRedis;
  baseUrl: string;
  cookies: string[];
  durationS: number;
  killAfterMs: number;
  lanes: number;
}): Promise<FailoverWindow> {
  const cluster = options.redis.cluster;
  if (!cluster) throw new Error('failoverWindow: not a cluster');
  const victimCookie = options.cookies[0]!;
  const victim = await cluster.masterOf(`${BENCH_PREFIX}s:${hashSessionToken(victimCookie)}`);
  const statuses: Record<string, number> = {};
  const latencies = new Samples();
  let killedAt = 0;
  let victimBackAt = 0;
  let lastNon200At = 0;
  let live401 = 0;
  const started = performance.now();
  const until = started + options.durationS * 1000;
  const killer = (async () => {
    await new Promise((resolve) => setTimeout(resolve, options.killAfterMs));
    await cluster.kill(victim.port);
    killedAt = performance.now();
  })();
  await Promise.all(
    Array.from({ length: options.lanes }, async (_, lane) => {
      const agent = keepAliveAgent(1);
      try {
        for (let index = lane; performance.now() < until; index += options.lanes) {
          // Lane 0 always asks for the session on the victim, the others rotate over every session.
          const cookie = lane === 0 ? victimCookie : options.cookies[index % options.cookies.length]!;
          const sent = performance.now();
          const answer = await request(agent, options.baseUrl, {
            method: 'GET',
            path: '/api/v1/session/',
            headers: { cookie: `sessionid=${cookie}`, accept: 'application/json' },
          });
          const done = performance.now();
          latencies.add(done - sent);
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          if (answer.status === 401) live401 += 1;
          if (answer.status !== 200 && killedAt) lastNon200At = Math.max(lastNon200At, done);
          if (lane === 0 && killedAt && sent >= killedAt && answer.status === 200 && !victimBackAt)
            victimBackAt = done;
          if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  await killer;
  await cluster.waitHealthy(30_000);
  const summary = latencies.summary();
  return {
    killed_master_port: victim.port,
    victim_session_back_ms: victimBackAt ? Math.round(victimBackAt - killedAt) : null,
    last_non_200_ms: lastNon200At ? Math.round(lastNon200At - killedAt) : 0,
    slowest_answer_ms: round(summary.max),
    statuses,
    live_session_401: live401,
    latency_ms: summary,
  };
}
