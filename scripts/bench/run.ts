/**
 * The whole benchmark: ceilings, then for each store a real service in a child process, seeded
 * through `gatehouse import`, driven over loopback phase by phase; one JSON report.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { hashSessionToken } from '../../src/domain/session/session-token.js';
import {
  type Argon2Ceiling,
  argon2Ceiling,
  type BareKoaCeiling,
  bareKoaCeiling,
  type PgCeiling,
  pgCeiling,
  storeLookupCeiling,
} from './ceilings.js';
import { createThrowawayDatabase, postgresReachable, type ThrowawayDatabase } from './databases.js';
import { type GatewayPhases, gatewayPhases } from './gateway.js';
import { type HostileKeysReport, hostileKeys } from './hostile-keys.js';
import { installed } from './installed.js';
import {
  JSON_HEADERS,
  keepAliveAgent,
  type LoadRequest,
  type LoadResult,
  pooled,
  request,
  runLoad,
  sessionCookieFrom,
} from './load.js';
import { type BenchOptions, type BenchStore, PROVIDERS_TARGET } from './options.js';
import { processTree, ResourceSampler, type ResourceUse, rssBytes } from './proc.js';
import { type ProviderScaleReport, providerScale } from './providers.js';
import {
  type BenchRedis,
  type FailoverWindow,
  failoverWindow,
  type RedisMemory,
  redisCeiling,
  redisMemoryPerSession,
  startBenchRedis,
} from './redis.js';
import { BENCH_PASSWORD, passwordUser, type SeedResult, seed, WRONG_PASSWORD } from './seed.js';
import { type RunningService, startService } from './service.js';
import { type BenchProvider, type SsoPhaseResult, ssoPhase, startBenchProvider } from './sso.js';
import { type LatencySummary, ratio, round, Samples } from './stats.js';
import { type TotpVerifyCpu, totpVerifyCpu } from './totp-cpu.js';
import { type TracingReport, tracingPhase } from './tracing.js';
import { type TwoStepLoginReport, twoStepLogin } from './two-step-login.js';

export type Log = (message: string) => void;

const execFileAsync = promisify(execFile);

type Phase = LoadResult & { server: ResourceUse };

export interface FailureTiming {
  /** Sequential requests, alternating, one connection: latency without queueing. */
  unknown_user_ms: LatencySummary;
  wrong_password_ms: LatencySummary;
  p50_difference_ms: number;
  p99_difference_ms: number;
  statuses: Record<string, number>;
  /** Both answers have the same status and body (apart from the request id). */
  same_answer: boolean;
}

export interface StoreReport {
  store: BenchStore;
  workers: number;
  seed: SeedResult & { data_dir_from_template?: boolean };
  startup_ms: number;
  rss_idle_mb: number | null;
  sessions_created: number;
  session_setup_s: number;
  phases: {
    session_get: Phase;
    session_get_2: Phase;
    session_get_3: Phase;
    password_login: Phase;
    /** A TOTP user's login + verify against the one-step login, interleaved (issue 28). */
    two_step_login: TwoStepLoginReport & { server: ResourceUse };
    sso_login: SsoPhaseResult & { server: ResourceUse };
    failed_login: Phase & { throttled_429: number };
    login_failure_timing: FailureTiming & { server: ResourceUse };
  };
  memory_leak_check: {
    /** Resident size after the first and the third identical session phases (after a short settle). */
    rss_after_first_mb: number | null;
    rss_after_third_mb: number | null;
    growth_pct: number | null;
    within_10_pct: boolean | null;
    /**
     * The same comparison on each phase's peak: the size after a phase is one point of V8's garbage
     * collection sawtooth, the peak is the top of it, and a leak raises both.
     */
    rss_peak_first_mb: number | null;
    rss_peak_third_mb: number | null;
    peak_growth_pct: number | null;
    peak_within_10_pct: boolean | null;
  };
  /** Highest RSS of any service process over the whole run (VmHWM), MiB. */
  rss_high_water_mb: number | null;
  pg_lookup?: PgCeiling;
  store_lookup?: PgCeiling;
  /** Redis stores: the same client reading one session key per call, at the session phase's concurrency. */
  redis_lookup?: PgCeiling;
  /** Redis stores: `INFO memory` before and after adding BENCH_REDIS_SESSIONS sessions. */
  redis_memory?: RedisMemory;
  /** The cluster: a master killed (SIGKILL) under session reads. */
  failover?: FailoverWindow;
  /** PostgreSQL (both transports): the forward-auth check direct and through nginx. */
  forward_auth?: GatewayPhases;
  /** PostgreSQL: the session GET with every request traced against untraced (issue 31). */
  tracing?: TracingReport;
  exit_code: number | null;
  /** Warning and error lines the service logged. */
  service_log_lines: number;
  service_log_tail: string;
}

export interface BenchReport {
  meta: Record<string, unknown>;
  ceilings: {
    argon2: Argon2Ceiling;
    bare_koa: BareKoaCeiling | null;
    /** The same with Fastify (when the fastify target ran). */
    bare_fastify: BareKoaCeiling | null;
    pg_lookup: PgCeiling | null;
    /** CPU per TOTP check, in process (`totp_verify_cpu_us`, ceiling 1,000 µs). */
    totp_verify: TotpVerifyCpu;
  };
  stores: Partial<Record<BenchStore, StoreReport>>;
  /** Per-customer providers: 1 against 1,000 registered, memory, registry changes (`providers`). */
  providers: ProviderScaleReport | null;
  /** Forged tokens against a hostile provider's key set, with and without the bounds (`keys`). */
  hostile_keys: HostileKeysReport | null;
  skipped: Record<string, string>;
  ratios: Partial<Record<BenchStore, Record<string, number | null>>>;
  goals: Partial<Record<BenchStore, Record<string, boolean | null>>>;
}

function highWaterMb(pid: number): number | null {
  let peak: number | null = null;
  for (const member of processTree(pid)) {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${member}/status`, 'utf8'));
      if (match) peak = Math.max(peak ?? 0, round(Number(match[1]) / 1024, 1));
    } catch {
      // gone
    }
  }
  return peak;
}

function treeRssMb(pid: number): number | null {
  const tree = processTree(pid);
  if (tree.length === 0) return null;
  let total = 0;
  for (const member of tree) total += rssBytes(member) ?? 0;
  return round(total / 1048576, 1);
}

async function measured<T extends object>(
  pid: number,
  work: () => Promise<T>,
): Promise<T & { server: ResourceUse }> {
  const sampler = new ResourceSampler(pid);
  sampler.start();
  try {
    const result = await work();
    return { ...result, server: sampler.stop() };
  } catch (error) {
    sampler.stop();
    throw error;
  }
}

const loginBody = (username: string, password: string) => JSON.stringify({ username, password });

export function loginRequest(username: string, password: string): LoadRequest {
  return {
    method: 'POST',
    path: '/api/v1/login/',
    headers: { ...JSON_HEADERS },
    body: loginBody(username, password),
  };
}

/** Logs in `count` times for real (argon2 verify each), 8 at a time; returns the cookies. */
export async function createSessions(baseUrl: string, count: number, users: number): Promise<string[]> {
  const agent = keepAliveAgent(8);
  try {
    return await pooled(count, 8, async (index) => {
      const answer = await request(agent, baseUrl, loginRequest(passwordUser(index % users), BENCH_PASSWORD));
      const cookie = sessionCookieFrom(answer.headers);
      if (answer.status !== 200 || !cookie) throw new Error(`login failed: ${answer.status} ${answer.body}`);
      return cookie;
    });
  } finally {
    agent.destroy();
  }
}

export function sessionRequests(cookies: string[]): LoadRequest[] {
  return cookies.map((cookie) => ({
    method: 'GET',
    path: '/api/v1/session/',
    headers: { cookie: `sessionid=${cookie}`, accept: 'application/json' },
  }));
}

async function failureTiming(baseUrl: string, users: number, durationS: number): Promise<FailureTiming> {
  const agent = keepAliveAgent(1);
  const unknown = new Samples();
  const wrong = new Samples();
  const statuses: Record<string, number> = {};
  const bodies = new Set<string>();
  try {
    const attempt = async (kind: 'unknown' | 'wrong', index: number) => {
      const username =
        kind === 'unknown' ? `nobody-${randomBytes(6).toString('hex')}` : passwordUser(index % users);
      const answer = await request(agent, baseUrl, loginRequest(username, WRONG_PASSWORD));
      const requestId = String(answer.headers['x-request-id'] ?? '');
      bodies.add(`${answer.status} ${requestId ? answer.body.replaceAll(requestId, '') : answer.body}`);
      statuses[`${kind}:${answer.status}`] = (statuses[`${kind}:${answer.status}`] ?? 0) + 1;
      return answer.ms;
    };
    // Warm-up: the dummy hash of the unknown-user path is made at its first use.
    for (let i = 0; i < 3; i++) {
      await attempt('unknown', i);
      await attempt('wrong', i);
    }
    bodies.clear();
    const until = performance.now() + durationS * 1000;
    const minimum = durationS >= 5 ? 20 : 5;
    for (let i = 0; performance.now() < until || unknown.count < minimum; i++) {
      // Alternate which goes first, so neither always follows the other.
      const order: Array<'unknown' | 'wrong'> = i % 2 === 0 ? ['unknown', 'wrong'] : ['wrong', 'unknown'];
      for (const kind of order) (kind === 'unknown' ? unknown : wrong).add(await attempt(kind, i));
    }
  } finally {
    agent.destroy();
  }
  const u = unknown.summary();
  const w = wrong.summary();
  return {
    unknown_user_ms: u,
    wrong_password_ms: w,
    p50_difference_ms: round(u.p50 - w.p50),
    p99_difference_ms: round(u.p99 - w.p99),
    statuses,
    same_answer: bodies.size === 1,
  };
}

interface StoreContext {
  root: string;
  options: BenchOptions;
  provider: BenchProvider;
  log: Log;
}

async function runStore(
  kind: BenchStore,
  context: StoreContext,
): Promise<{ report: StoreReport; cookies: string[]; sessionBody: string }> {
  const { root, options, provider, log } = context;
  const durationS = options.seconds;
  const tmp = await mkdtemp(join(tmpdir(), `gatehouse-bench-${kind}-`));
  let database: ThrowawayDatabase | null = null;
  let redis: BenchRedis | null = null;
  let service: RunningService | null = null;
  try {
    let storeEnv: Record<string, string>;
    if (kind !== 'pglite') {
      database = await createThrowawayDatabase(options.adminDatabaseUrl);
      storeEnv = { DATABASE_URL: database.url };
      log(`[${kind}] database ${database.name}`);
      // The Fastify target: the same PostgreSQL service, the API on the other transport.
      if (kind === 'fastify') storeEnv = { ...storeEnv, HTTP_TRANSPORT: 'fastify' };
      if (kind === 'redis' || kind === 'redis-cluster') {
        // Users, directory and audit stay in PostgreSQL; sessions and throttle counters go to Redis.
        redis = await startBenchRedis(kind);
        storeEnv = { ...storeEnv, ...redis.env };
        log(`[${kind}] ${kind === 'redis' ? 'redis-server' : '3+3 cluster'} started`);
      }
    } else {
      storeEnv = { DATA_DIR: join(tmp, 'data') };
      if (options.pgliteTemplate) {
        // A migrated data directory (the test suite's template): skips initdb; the import still runs.
        await mkdir(storeEnv.DATA_DIR!, { recursive: true, mode: 0o700 }); // Gatehouse refuses a folder others can read
        await execFileAsync('tar', ['-xf', options.pgliteTemplate, '-C', storeEnv.DATA_DIR!]);
      }
    }
    log(`[${kind}] seeding ${options.users} + ${options.ssoUsers} users`);
    const seeded = await seed({
      root,
      dir: tmp,
      // The import writes users only: the database is enough.
      env: database ? { DATABASE_URL: database.url } : storeEnv,
      plan: {
        passwordUsers: options.users,
        ssoUsers: options.ssoUsers,
        totpUsers: options.totpUsers,
        ssoLevel: 8,
      },
    });
    log(`[${kind}] seeded via ${seeded.method} in ${seeded.ms} ms`);

    const workers = kind === 'pglite' ? 1 : options.workers;
    const started = performance.now();
    const serviceEnv = {
      ...storeEnv,
      ...provider.env,
      // Failures are counted but never throttle within the benchmark (the 429s are still reported).
      LOGIN_MAX_FAILURES: '1000',
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...(workers > 1 ? { WORKERS: String(workers) } : {}),
      ...options.serviceEnv,
    };
    service = await startService({
      root,
      env: serviceEnv,
      nodeArgs: options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, kind)}`] : [],
    });
    const startupMs = Math.round(performance.now() - started);
    const pid = service.pid;
    const baseUrl = service.url;
    await sleep(durationS >= 5 ? 500 : 100);
    const rssIdle = treeRssMb(pid);
    log(`[${kind}] service up at ${baseUrl} in ${startupMs} ms (rss ${rssIdle} MB)`);

    const setupStarted = performance.now();
    const cookies = await createSessions(baseUrl, options.sessions, options.users);
    const sessionSetupS = round((performance.now() - setupStarted) / 1000);
    log(`[${kind}] ${cookies.length} sessions by real logins in ${sessionSetupS} s`);
    const agent = keepAliveAgent(1);
    const sample = await request(agent, baseUrl, sessionRequests(cookies.slice(0, 1))[0]!);
    agent.destroy();
    if (sample.status !== 200) throw new Error(`session GET answered ${sample.status}: ${sample.body}`);

    const getRequests = sessionRequests(cookies);
    const sessionPhase = async (label: string) => {
      log(
        `[${kind}] ${label}: GET /api/v1/session/, ${options.sessionConnections} connections, ${durationS} s`,
      );
      const phase = await measured(pid, () =>
        runLoad({ baseUrl, connections: options.sessionConnections, durationS, requests: getRequests }),
      );
      // Let in-flight work settle before reading the resident size.
      await sleep(durationS >= 5 ? 1000 : 200);
      log(`[${kind}]   ${phase.req_per_s} req/s, p99 ${phase.latency_ms.p99} ms, non-2xx ${phase.non_2xx}`);
      return { phase, rssAfter: treeRssMb(pid) };
    };
    // Warm-up (not reported): JIT, connection pool and heap sizing settle before the first phase.
    await runLoad({
      baseUrl,
      connections: options.sessionConnections,
      durationS: Math.min(3, durationS),
      requests: getRequests,
    });
    const first = await sessionPhase('session_get');
    const second = await sessionPhase('session_get_2');
    const third = await sessionPhase('session_get_3');

    log(`[${kind}] password_login: ${options.loginConnections} connections, ${durationS} s`);
    const loginRequests = Array.from({ length: options.users }, (_, index) =>
      loginRequest(passwordUser(index), BENCH_PASSWORD),
    );
    const passwordLogin = await measured(pid, () =>
      runLoad({ baseUrl, connections: options.loginConnections, durationS, requests: loginRequests }),
    );
    log(`[${kind}]   ${passwordLogin.req_per_s} logins/s, p99 ${passwordLogin.latency_ms.p99} ms`);

    log(
      `[${kind}] two_step_login: ${options.totpUsers} TOTP users enrolled, then login + verify against ` +
        `one-step logins, 4 interleaved rounds, ${options.loginConnections} connections, ${durationS} s each`,
    );
    const twoStep = await measured(pid, () =>
      twoStepLogin({
        baseUrl,
        serverPid: pid,
        totpUsers: options.totpUsers,
        passwordUsers: options.users,
        connections: options.loginConnections,
        durationS,
        rounds: 4,
      }),
    );
    log(
      `[${kind}]   ${twoStep.two_step.logins_per_s} two-step vs ${twoStep.one_step.logins_per_s} one-step logins/s ` +
        `(${twoStep.two_step_vs_one_step}x, ${twoStep.two_step.waits} waits); machine CPU per login ` +
        `${twoStep.two_step.machine_cpu_ms_per_login} vs ${twoStep.one_step.machine_cpu_ms_per_login} ms ` +
        `(${twoStep.cpu_two_step_vs_one_step}x), cores busy ${twoStep.two_step.machine_cpu_pct} vs ` +
        `${twoStep.one_step.machine_cpu_pct} %`,
    );

    log(`[${kind}] sso_login`);
    const sso = await measured(pid, () =>
      ssoPhase({
        bench: provider,
        baseUrl,
        users: options.ssoUsers,
        durationS,
        connections: options.loginConnections,
      }),
    );
    log(
      `[${kind}]   sequential ${sso.sequential.latency_ms.p50} ms p50 (overhead ${sso.sequential.overhead_ms.p50} ms), ` +
        `concurrent ${sso.concurrent.req_per_s} logins/s`,
    );

    log(`[${kind}] failed_login: wrong passwords, ${options.loginConnections} connections, ${durationS} s`);
    const failedRequests = Array.from({ length: options.users }, (_, index) =>
      loginRequest(passwordUser(index), WRONG_PASSWORD),
    );
    const failed = await measured(pid, () =>
      runLoad({ baseUrl, connections: options.loginConnections, durationS, requests: failedRequests }),
    );
    log(`[${kind}]   ${failed.req_per_s} failures/s, status ${JSON.stringify(failed.status)}`);

    log(`[${kind}] login_failure_timing: unknown user vs wrong password, sequential, ${durationS} s`);
    const timing = await measured(pid, () => failureTiming(baseUrl, options.users, durationS));
    log(
      `[${kind}]   p50 unknown ${timing.unknown_user_ms.p50} ms vs wrong ${timing.wrong_password_ms.p50} ms`,
    );

    let pgLookup: PgCeiling | undefined;
    let storeLookup: PgCeiling | undefined;
    let redisLookup: PgCeiling | undefined;
    let redisMemory: RedisMemory | undefined;
    let failover: FailoverWindow | undefined;
    if (redis) {
      log(
        `[${kind}] ceiling: the Redis client reading one session key a call, ${options.sessionConnections} in flight`,
      );
      redisLookup = await redisCeiling({
        redis,
        durationS,
        concurrency: options.sessionConnections,
        tokenHashes: cookies.map(hashSessionToken),
      });
      log(`[${kind}]   ${redisLookup.queries_per_s} reads/s`);
      log(`[${kind}] memory: ${options.redisSessions} sessions added, INFO memory before and after`);
      redisMemory = await redisMemoryPerSession(redis, options.redisSessions);
      log(
        `[${kind}]   ${redisMemory.bytes_per_session} bytes a session (${redisMemory.create_s} s to add them)`,
      );
      if (redis.cluster) {
        log(`[${kind}] failover: a master killed after 3 s of session reads, ${options.failoverSeconds} s`);
        failover = await failoverWindow({
          redis,
          baseUrl,
          cookies,
          durationS: options.failoverSeconds,
          killAfterMs: 3000,
          lanes: 8,
        });
        log(
          `[${kind}]   a session on the killed master answered again after ${failover.victim_session_back_ms} ms; ` +
            `answers ${JSON.stringify(failover.statuses)}`,
        );
      }
    }
    let forwardAuth: GatewayPhases | undefined;
    if ((kind === 'postgres' || kind === 'fastify') && installed('nginx', ['-v'])) {
      log(`[${kind}] forward auth: the session check direct, through nginx auth_request, nginx alone`);
      forwardAuth = await measured(pid, () =>
        gatewayPhases({ baseUrl, cookies, connections: options.sessionConnections, durationS }),
      );
      log(
        `[${kind}]   direct ${forwardAuth.session_check.req_per_s} req/s; via nginx ${forwardAuth.session_check_via_nginx.req_per_s} req/s ` +
          `(p99 ${forwardAuth.session_check_via_nginx.latency_ms.p99} ms); nginx alone ${forwardAuth.nginx_proxy_only.req_per_s} req/s`,
      );
    }
    let tracing: TracingReport | undefined;
    if (kind === 'postgres') {
      const secondsPerRound = Math.max(1, durationS / 2);
      log(
        `[${kind}] tracing: session GET, untraced against every request traced (OTLP http/protobuf to a ` +
          `local sink), 4 alternating rounds of ${secondsPerRound} s each`,
      );
      tracing = await tracingPhase({
        root,
        env: serviceEnv,
        requests: getRequests,
        connections: options.sessionConnections,
        rounds: 4,
        secondsPerRound,
      });
      log(
        `[${kind}]   traced ${tracing.traced_vs_untraced}x of untraced (by service CPU per request ` +
          `${tracing.cpu_untraced_vs_traced}x); ${tracing.traced.exports_received} exports received`,
      );
    }
    if (kind === 'postgres' && database) {
      log(`[${kind}] ceilings: raw pg lookup and the store's session query (pool 10, 32 in flight)`);
      pgLookup = await pgCeiling({ databaseUrl: database.url, durationS, poolSize: 10, concurrency: 32 });
      storeLookup = await storeLookupCeiling({
        databaseUrl: database.url,
        durationS,
        poolSize: 10,
        concurrency: 32,
        tokenHashes: cookies.map(hashSessionToken),
      });
      log(`[${kind}]   pg ${pgLookup.queries_per_s} q/s, store lookup ${storeLookup.queries_per_s} q/s`);
    }

    const hwm = highWaterMb(pid);
    const exitCode = await service.stop();
    const output = service.output();
    service = null;
    const growth = (before: number | null, after: number | null) =>
      before && after ? round(((after - before) / before) * 100, 1) : null;
    const peakGrowth = growth(first.phase.server.rss_peak_mb, third.phase.server.rss_peak_mb);
    const leakGrowth = growth(first.rssAfter, third.rssAfter);
    const report: StoreReport = {
      store: kind,
      workers,
      seed:
        kind === 'pglite' && options.pgliteTemplate ? { ...seeded, data_dir_from_template: true } : seeded,
      startup_ms: startupMs,
      rss_idle_mb: rssIdle,
      sessions_created: cookies.length,
      session_setup_s: sessionSetupS,
      phases: {
        session_get: first.phase,
        session_get_2: second.phase,
        session_get_3: third.phase,
        password_login: passwordLogin,
        two_step_login: twoStep,
        sso_login: sso,
        failed_login: { ...failed, throttled_429: failed.status['429'] ?? 0 },
        login_failure_timing: timing,
      },
      memory_leak_check: {
        rss_after_first_mb: first.rssAfter,
        rss_after_third_mb: third.rssAfter,
        growth_pct: leakGrowth,
        within_10_pct: leakGrowth === null ? null : leakGrowth <= 10,
        rss_peak_first_mb: first.phase.server.rss_peak_mb,
        rss_peak_third_mb: third.phase.server.rss_peak_mb,
        peak_growth_pct: peakGrowth,
        peak_within_10_pct: peakGrowth === null ? null : peakGrowth <= 10,
      },
      rss_high_water_mb: hwm,
      ...(pgLookup ? { pg_lookup: pgLookup } : {}),
      ...(storeLookup ? { store_lookup: storeLookup } : {}),
      ...(redisLookup ? { redis_lookup: redisLookup } : {}),
      ...(redisMemory ? { redis_memory: redisMemory } : {}),
      ...(failover ? { failover } : {}),
      ...(forwardAuth ? { forward_auth: forwardAuth } : {}),
      ...(tracing ? { tracing } : {}),
      exit_code: exitCode,
      service_log_lines: output.split('\n').filter((line) => line.trim() !== '').length,
      service_log_tail: output.slice(-2000),
    };
    return { report, cookies, sessionBody: sample.body };
  } finally {
    if (service) await service.stop(5000);
    await redis?.close();
    if (database)
      await database
        .drop()
        .catch((error: unknown) => log(`could not drop ${database?.name}: ${String(error)}`));
    await rm(tmp, { recursive: true, force: true });
  }
}

function gitCommit(root: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function medianPhase<T extends { req_per_s: number }>(phases: T[]): T {
  return [...phases].sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(phases.length / 2)]!;
}

export async function runBench(root: string, options: BenchOptions, log: Log): Promise<BenchReport> {
  const startedAt = new Date();
  const loadBefore = loadavg().map((value) => round(value, 2));
  if (loadBefore[0]! > availableParallelism() / 2) {
    log(`note: load average ${loadBefore.join(' ')} before the run: other work will skew the figures`);
  }
  const skipped: Record<string, string> = {};
  const stores: BenchStore[] = [];
  const postgresProblem =
    options.providerScale || options.stores.some((store) => store !== 'pglite')
      ? await postgresReachable(options.adminDatabaseUrl)
      : null;
  let providerScaleRuns = options.providerScale;
  if (providerScaleRuns && postgresProblem) {
    if (options.storesExplicit) throw new Error(`PostgreSQL is not reachable: ${postgresProblem}`);
    skipped[PROVIDERS_TARGET] = `PostgreSQL not reachable (${postgresProblem}); set BENCH_DATABASE_URL`;
    providerScaleRuns = false;
  }
  for (const store of options.stores) {
    if (store !== 'pglite' && postgresProblem) {
      if (options.storesExplicit) throw new Error(`PostgreSQL is not reachable: ${postgresProblem}`);
      skipped[store] = `PostgreSQL not reachable (${postgresProblem}); set BENCH_DATABASE_URL`;
      log(`skipping ${store}: PostgreSQL ${postgresProblem}`);
      continue;
    }
    if ((store === 'redis' || store === 'redis-cluster') && !installed('redis-server')) {
      if (options.storesExplicit) throw new Error('redis-server is not installed');
      skipped[store] = 'redis-server is not installed (apt-get install redis-server)';
      log(`skipping ${store}: no redis-server`);
      continue;
    }
    stores.push(store);
  }

  log(`ceiling: argon2id verifies, ${options.seconds} s`);
  const argon2 = await argon2Ceiling(options.seconds);
  log(`  ${argon2.verifies_per_s} verifies/s (single ${argon2.single_verify_ms.p50} ms)`);
  log('ceiling: TOTP verification CPU, 20,000 right and wrong codes, in process');
  const totpVerify = totpVerifyCpu(20_000);
  log(`  ${totpVerify.totp_verify_cpu_us} µs CPU per verification`);

  const provider = await startBenchProvider(options.ssoUsers);
  const reports: Partial<Record<BenchStore, StoreReport>> = {};
  let providers: ProviderScaleReport | null = null;
  let koaInput: { cookies: string[]; body: string } | null = null;
  try {
    for (const store of stores) {
      const { report, cookies, sessionBody } = await runStore(store, { root, options, provider, log });
      reports[store] = report;
      koaInput ??= { cookies, body: sessionBody };
    }
    if (providerScaleRuns) {
      log(
        `[providers] SSO logins with 1 and with ${options.providers} registered providers, ` +
          `${options.providerRounds} interleaved rounds; memory; registry changes to other instances`,
      );
      providers = await providerScale({ root, options, bench: provider, log });
    }
  } finally {
    await provider.close();
  }
  const hostile = options.hostileKeys ? await hostileKeys(log) : null;

  let bareKoa: BareKoaCeiling | null = null;
  let bareFastify: BareKoaCeiling | null = null;
  if (koaInput) {
    log(`ceiling: bare Koa, fixed JSON, ${options.sessionConnections} connections, ${options.seconds} s`);
    bareKoa = await bareKoaCeiling({
      body: koaInput.body,
      connections: options.sessionConnections,
      durationS: options.seconds,
      requests: sessionRequests(koaInput.cookies),
    });
    log(`  ${bareKoa.req_per_s} req/s, p99 ${bareKoa.latency_ms.p99} ms`);
    if (reports.fastify) {
      log(
        `ceiling: bare Fastify, fixed JSON, ${options.sessionConnections} connections, ${options.seconds} s`,
      );
      bareFastify = await bareKoaCeiling({
        body: koaInput.body,
        connections: options.sessionConnections,
        durationS: options.seconds,
        requests: sessionRequests(koaInput.cookies),
        framework: 'fastify',
      });
      log(`  ${bareFastify.req_per_s} req/s, p99 ${bareFastify.latency_ms.p99} ms`);
    }
  }

  const ratios: BenchReport['ratios'] = {};
  const goals: BenchReport['goals'] = {};
  for (const [store, report] of Object.entries(reports) as Array<[BenchStore, StoreReport]>) {
    // The median of the three identical session phases: one phase moves by 10-30 % on a shared machine.
    const sessionPhases = [
      report.phases.session_get,
      report.phases.session_get_2,
      report.phases.session_get_3,
    ];
    const get = medianPhase(sessionPhases);
    const login = report.phases.password_login;
    ratios[store] = {
      session_get_vs_bare_koa: ratio(get.req_per_s, bareKoa?.req_per_s),
      password_login_vs_argon2: ratio(login.req_per_s, argon2.verifies_per_s),
      failed_login_vs_argon2: ratio(report.phases.failed_login.req_per_s, argon2.verifies_per_s),
      two_step_login_vs_one_step: report.phases.two_step_login.two_step_vs_one_step,
      session_get_vs_pg_lookup: ratio(get.req_per_s, report.pg_lookup?.queries_per_s),
      session_get_vs_store_lookup: ratio(get.req_per_s, report.store_lookup?.queries_per_s),
      session_get_vs_redis_lookup: ratio(get.req_per_s, report.redis_lookup?.queries_per_s),
      session_get_vs_postgres: ratio(
        get.req_per_s,
        reports.postgres
          ? medianPhase([
              reports.postgres.phases.session_get,
              reports.postgres.phases.session_get_2,
              reports.postgres.phases.session_get_3,
            ]).req_per_s
          : undefined,
      ),
      password_login_vs_postgres: ratio(login.req_per_s, reports.postgres?.phases.password_login.req_per_s),
      session_get_vs_bare_fastify: ratio(get.req_per_s, bareFastify?.req_per_s),
      session_check_via_nginx_vs_direct: ratio(
        report.forward_auth?.session_check_via_nginx.req_per_s,
        report.forward_auth?.session_check.req_per_s,
      ),
      session_get_traced_vs_untraced: report.tracing?.traced_vs_untraced ?? null,
      session_check_via_nginx_vs_nginx_alone: ratio(
        report.forward_auth?.session_check_via_nginx.req_per_s,
        report.forward_auth?.nginx_proxy_only.req_per_s,
      ),
    };
    const peakPerProcess = Math.max(
      report.rss_high_water_mb ?? 0,
      ...Object.values(report.phases).map((phase) => phase.server.rss_peak_per_process_mb ?? 0),
    );
    goals[store] = {
      session_get_at_least_40pct_of_bare_koa:
        ratios[store].session_get_vs_bare_koa === null ? null : ratios[store].session_get_vs_bare_koa! >= 0.4,
      session_get_p99_under_10ms: get.latency_ms.p99 < 10,
      session_get_no_errors: sessionPhases.every((phase) => phase.errors === 0 && phase.non_2xx === 0),
      password_login_at_least_90pct_of_argon2: ratios[store].password_login_vs_argon2! >= 0.9,
      two_step_login_at_least_90pct_of_one_step: report.phases.two_step_login.at_least_floor,
      two_step_login_no_errors: report.phases.two_step_login.two_step.errors === 0,
      ...(report.tracing
        ? {
            traced_session_get_at_least_85pct_of_untraced: report.tracing.at_least_floor,
            traced_session_get_no_errors:
              report.tracing.traced.non_2xx + report.tracing.traced.errors === 0 &&
              report.tracing.untraced.non_2xx + report.tracing.untraced.errors === 0,
          }
        : {}),
      totp_verify_under_1000_cpu_us: totpVerify.within_ceiling,
      rss_per_process_under_150mb: peakPerProcess > 0 ? peakPerProcess < 150 : null,
      no_memory_growth_after_phase: report.memory_leak_check.within_10_pct,
      no_memory_growth_peak: report.memory_leak_check.peak_within_10_pct,
      no_user_enumeration_by_status_or_body: report.phases.login_failure_timing.same_answer,
      ...(report.failover
        ? {
            failover_no_401_for_a_live_session: report.failover.live_session_401 === 0,
            failover_no_500: (report.failover.statuses['500'] ?? 0) === 0,
            failover_session_back_within_10s:
              report.failover.victim_session_back_ms !== null &&
              report.failover.victim_session_back_ms < 10_000,
          }
        : {}),
    };
  }

  return {
    meta: {
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      // Other work on the machine skews every figure: compare with the core count.
      load_average_before: loadBefore,
      load_average_after: loadavg().map((value) => round(value, 2)),
      commit: gitCommit(root),
      node: process.version,
      cpus: availableParallelism(),
      cpu_model: cpus()[0]?.model ?? null,
      memory_gb: round(totalmem() / 2 ** 30, 1),
      seconds_per_phase: options.seconds,
      session_connections: options.sessionConnections,
      login_connections: options.loginConnections,
      sessions: options.sessions,
      users: options.users,
      sso_users: options.ssoUsers,
      workers_postgres_and_redis: options.workers,
      redis_sessions_for_memory: options.redisSessions,
      service_env: [
        'NODE_ENV=production LOG_LEVEL=warn BOOTSTRAP_ADMIN=false LOGIN_MAX_FAILURES=1000',
        ...Object.entries(options.serviceEnv).map(([name, value]) => `${name}=${value}`),
      ].join(' '),
      latency_note: 'milliseconds, client-side, every response recorded (nearest-rank percentiles)',
    },
    ceilings: {
      argon2,
      bare_koa: bareKoa,
      bare_fastify: bareFastify,
      pg_lookup: reports.postgres?.pg_lookup ?? null,
      totp_verify: totpVerify,
    },
    stores: reports,
    providers,
    hostile_keys: hostile,
    skipped,
    ratios,
    goals,
  };
}
