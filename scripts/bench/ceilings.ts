/**
 * The physical ceilings the phases are compared with, measured in the same run on the same machine:
 * argon2id verifies per second on all cores, bare Koa with a fixed answer, raw `pg` prepared
 * single-row lookups, and Gatehouse's own session lookup through its repository (no HTTP).
 */
import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import pg from 'pg';
import { PgSqlClient } from '../../src/adapters/sql/pg-sql-client.js';
import { SqlSessionLookup } from '../../src/adapters/sql/sql-session-lookup.js';
import { type LoadRequest, type LoadResult, runLoad } from './load.js';
import { startPortChild } from './port-child.js';
import { ResourceSampler, type ResourceUse } from './proc.js';
import { type LatencySummary, round, Samples } from './stats.js';

export interface Argon2Ceiling {
  params: { memory_kib: number; time_cost: number; parallelism: number };
  concurrency: number;
  verifies: number;
  verifies_per_s: number;
  /** One verify at a time: the floor of a login's latency. */
  single_verify_ms: LatencySummary;
}

/** @node-rs/argon2's async verify runs on libuv's thread pool; enough calls in flight fill every core. */
export async function argon2Ceiling(durationS: number): Promise<Argon2Ceiling> {
  const params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
  const password = 'bench-password-0123456789';
  const stored = await hash(password, { algorithm: 2, version: 1, ...params });
  const single = new Samples();
  const singleUntil = performance.now() + Math.min(2000, (durationS * 1000) / 4);
  while (performance.now() < singleUntil || single.count < 5) {
    const started = performance.now();
    if (!(await verify(stored, password))) throw new Error('argon2 verify failed');
    single.add(performance.now() - started);
  }
  const concurrency = Math.max(8, availableParallelism() * 4);
  let verifies = 0;
  const started = performance.now();
  const until = started + durationS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await verify(stored, password);
        verifies++;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  return {
    params: { memory_kib: params.memoryCost, time_cost: params.timeCost, parallelism: params.parallelism },
    concurrency,
    verifies,
    verifies_per_s: round(verifies / elapsedS, 1),
    single_verify_ms: single.summary(),
  };
}

export interface BareKoaCeiling extends LoadResult {
  body_bytes: number;
  server: ResourceUse;
}

/**
 * A tiny Koa (or Fastify) server in a child process answering a fixed body, driven with the same
 * autocannon settings as the session phase: what the framework alone costs.
 */
export async function bareKoaCeiling(options: {
  body: string;
  connections: number;
  durationS: number;
  requests: LoadRequest[];
  framework?: 'koa' | 'fastify';
}): Promise<BareKoaCeiling> {
  const script = options.framework === 'fastify' ? 'bare-fastify.mjs' : 'bare-koa.mjs';
  const { child, port } = await startPortChild(script, { NODE_ENV: 'production', BARE_BODY: options.body });
  try {
    const sampler = new ResourceSampler(child.pid!);
    sampler.start();
    const load = await runLoad({
      baseUrl: `http://127.0.0.1:${port}`,
      connections: options.connections,
      durationS: options.durationS,
      requests: options.requests,
    });
    return { ...load, body_bytes: Buffer.byteLength(options.body), server: sampler.stop() };
  } finally {
    child.kill('SIGTERM');
  }
}

export interface PgCeiling {
  pool_size: number;
  concurrency: number;
  queries: number;
  queries_per_s: number;
  latency_ms: LatencySummary;
}

export async function hammer(
  durationS: number,
  concurrency: number,
  query: (index: number) => Promise<unknown>,
): Promise<{ queries: number; queries_per_s: number; latency_ms: LatencySummary }> {
  const latencies = new Samples();
  let queries = 0;
  const started = performance.now();
  const until = started + durationS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      let index = lane;
      while (performance.now() < until) {
        const begun = performance.now();
        await query(index);
        latencies.add(performance.now() - begun);
        queries++;
        index += concurrency;
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  return { queries, queries_per_s: round(queries / elapsedS, 1), latency_ms: latencies.summary() };
}

/** Raw `pg`: a named (prepared) primary-key lookup on a sessions-like table of 1,000 rows. */
export async function pgCeiling(options: {
  databaseUrl: string;
  durationS: number;
  poolSize: number;
  concurrency: number;
}): Promise<PgCeiling> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize });
  try {
    await pool.query(`CREATE TABLE bench_ceiling_sessions (
      token_hash text PRIMARY KEY, user_id text NOT NULL, created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, user_agent text)`);
    const keys = Array.from({ length: 1000 }, () =>
      createHash('sha256').update(randomBytes(32)).digest('hex'),
    );
    await pool.query(
      `INSERT INTO bench_ceiling_sessions
       SELECT k, 'u-' || n, now(), now(), now() + interval '12 hours', 'bench'
         FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)`,
      [keys],
    );
    await pool.query('ANALYZE bench_ceiling_sessions');
    const result = await hammer(options.durationS, options.concurrency, (index) =>
      pool.query({
        name: 'bench_ceiling_lookup',
        text: 'SELECT * FROM bench_ceiling_sessions WHERE token_hash = $1',
        values: [keys[index % keys.length]],
      }),
    );
    await pool.query('DROP TABLE bench_ceiling_sessions');
    return { pool_size: options.poolSize, concurrency: options.concurrency, ...result };
  } finally {
    await pool.end();
  }
}

/**
 * Gatehouse's own hot-path query (session joined with user and backend, prepared, rows mapped) on the
 * benchmark's seeded sessions, through its repository and PgSqlClient: the store's share of a request.
 */
export async function storeLookupCeiling(options: {
  databaseUrl: string;
  durationS: number;
  poolSize: number;
  concurrency: number;
  tokenHashes: string[];
}): Promise<PgCeiling> {
  const client = new PgSqlClient({
    connectionString: options.databaseUrl,
    poolSize: options.poolSize,
    connectionTimeoutMs: 10_000,
    statementTimeoutMs: 10_000,
  });
  try {
    const sessions = new SqlSessionLookup(client);
    // The sessions still stored: the phases before this one log the same users in again and
    // again, and a user's oldest sessions give way to the new ones (SESSIONS_PER_USER_MAX).
    const live: string[] = [];
    for (const tokenHash of options.tokenHashes) {
      if (await sessions.findSessionWithUser(tokenHash)) live.push(tokenHash);
    }
    if (live.length === 0) throw new Error('none of the seeded sessions is stored any more');
    const result = await hammer(options.durationS, options.concurrency, async (index) => {
      const found = await sessions.findSessionWithUser(live[index % live.length]!);
      if (!found) throw new Error('seeded session not found');
    });
    return { pool_size: options.poolSize, concurrency: options.concurrency, ...result };
  } finally {
    await client.close();
  }
}
