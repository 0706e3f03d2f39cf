/**
 * Per-customer providers at scale (PostgreSQL): the same SSO login against a service whose registry
 * holds one provider and against one whose registry holds 1,000 (the real local provider and 999
 * customers whose issuers are never contacted), both running at once and measured in interleaved
 * rounds; the memory of both once their directories are loaded; the cost of one provider's
 * adapters in this process; and how long a registry change takes to reach other instances.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_REDIRECT_URI } from '../../test/support/oidc/test-provider.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from './databases.js';
import { type DirectoryCost, directoryCost } from './directory-cost.js';
import { keepAliveAgent, request } from './load.js';
import type { BenchOptions } from './options.js';
import { processTree, ResourceSampler, type ResourceUse, rssBytes } from './proc.js';
import { type PropagationReport, propagationPhase } from './propagation.js';
import { type BenchRegistry, openBenchRegistry, registerCustomers } from './registry.js';
import { seed } from './seed.js';
import { type RunningService, startService } from './service.js';
import { type BenchProvider, CHANGE_USERS, type SsoPhaseResult, ssoPhase } from './sso.js';
import { median, ratio, round } from './stats.js';

type Variant = 'one' | 'many';

export interface ProcessMemory {
  /** All the service's processes, /proc VmRSS. */
  rss_mb: number | null;
  /** V8's used heap at that moment (`nodejs_heap_size_used_bytes` of /metrics). */
  heap_used_mb: number | null;
}

export interface ProviderRound {
  round: number;
  variant: Variant;
  sequential_p50_ms: number;
  sequential_p99_ms: number;
  overhead_p50_ms: number;
  overhead_p99_ms: number;
  concurrent_logins_per_s: number;
  concurrent_p99_ms: number;
  failures: number;
  /**
   * The service's CPU time over the round divided by its logins: less moved by other work on the
   * machine than latency is (a login waiting for a core costs no CPU while it waits).
   */
  cpu_ms_per_login: number | null;
  server: ResourceUse;
}

export interface VariantSummary {
  registered_providers: number;
  startup_ms: number;
  /** Medians over the rounds. */
  sequential_p50_ms: number;
  sequential_p99_ms: number;
  overhead_p50_ms: number;
  concurrent_logins_per_s: number;
  cpu_ms_per_login: number | null;
  failures: number;
  memory_idle: ProcessMemory;
  memory_after_rounds: ProcessMemory;
}

export interface ProviderScaleReport {
  registration_ms: number;
  round_seconds: number;
  one: VariantSummary;
  many: VariantSummary;
  /** many / one, of the medians. */
  ratios: Record<string, number | null>;
  /** (many - one) / (providers - 1), from the idle services: KiB a registered provider costs. */
  per_provider_kib: { rss: number | null; heap: number | null };
  directory_in_process: DirectoryCost;
  rounds: ProviderRound[];
  propagation: PropagationReport;
  failure_samples: string[];
}

async function memoryOf(service: RunningService): Promise<ProcessMemory> {
  let rss = 0;
  for (const pid of processTree(service.pid)) rss += rssBytes(pid) ?? 0;
  const agent = keepAliveAgent(1);
  try {
    const metrics = await request(agent, service.url, { method: 'GET', path: '/metrics' });
    const heap = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(metrics.body);
    return {
      rss_mb: rss ? round(rss / 1048576, 1) : null,
      heap_used_mb: heap ? round(Number(heap[1]) / 1048576, 1) : null,
    };
  } finally {
    agent.destroy();
  }
}

function roundOf(
  index: number,
  variant: Variant,
  sso: SsoPhaseResult & { server: ResourceUse },
  wallMs: number,
): ProviderRound {
  // Every login of the round: the two of the warm-up, the sequential ones, the concurrent ones.
  const logins =
    2 + sso.sequential.logins + sso.sequential.failures + sso.concurrent.logins + sso.concurrent.failures;
  return {
    round: index + 1,
    variant,
    sequential_p50_ms: sso.sequential.latency_ms.p50,
    sequential_p99_ms: sso.sequential.latency_ms.p99,
    overhead_p50_ms: sso.sequential.overhead_ms.p50,
    overhead_p99_ms: sso.sequential.overhead_ms.p99,
    concurrent_logins_per_s: sso.concurrent.req_per_s,
    concurrent_p99_ms: sso.concurrent.latency_ms.p99,
    failures: sso.sequential.failures + sso.concurrent.failures,
    cpu_ms_per_login:
      sso.server.cpu_pct === null ? null : round((sso.server.cpu_pct / 100) * (wallMs / logins), 2),
    server: sso.server,
  };
}

export async function providerScale(options: {
  root: string;
  options: BenchOptions;
  bench: BenchProvider;
  log: (message: string) => void;
}): Promise<ProviderScaleReport> {
  const { root, bench, log } = options;
  const { providers, providerRounds, seconds, registryPollMs, registryChanges, ssoUsers } = options.options;
  const roundSeconds = Math.max(1, seconds / 2);
  const key = randomBytes(32).toString('base64');
  const tmp = await mkdtemp(join(tmpdir(), 'gatehouse-bench-providers-'));
  const databases: ThrowawayDatabase[] = [];
  const registries: BenchRegistry[] = [];
  const services: RunningService[] = [];
  const serviceEnv = (databaseUrl: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    TOKEN_ENCRYPTION_KEY: key,
    OIDC_ALLOW_INSECURE_HTTP: 'true',
    LOGIN_MAX_FAILURES: '1000',
    METRICS_ON_MAIN_PORT: 'true',
    ...options.options.serviceEnv,
    ...extra,
  });
  try {
    // Two databases, the same users: one registry holds the real provider alone, the other the
    // real provider and providers - 1 customers beside it.
    const variants: Record<
      Variant,
      { database: ThrowawayDatabase; registry: BenchRegistry; service?: RunningService; startupMs?: number }
    > = {} as never;
    let registrationMs = 0;
    for (const [variant, idle] of [
      ['one', 0],
      ['many', providers - 1],
    ] as const) {
      const database = await createThrowawayDatabase(options.options.adminDatabaseUrl);
      databases.push(database);
      await seed({
        root,
        dir: tmp,
        env: { DATABASE_URL: database.url },
        plan: { passwordUsers: 1, ssoUsers: ssoUsers + CHANGE_USERS, ssoLevel: 8 },
      });
      const registry = openBenchRegistry(database.url, key);
      registries.push(registry);
      const ms = await registerCustomers(bench, registry, idle);
      if (variant === 'many') registrationMs = ms;
      log(`[providers] ${idle + 1} provider(s) registered in ${database.name} in ${ms} ms`);
      variants[variant] = { database, registry };
    }
    // Started with the registry already full: the start-up loads every provider's adapters.
    for (const variant of ['one', 'many'] as const) {
      const started = performance.now();
      const service = await startService({ root, env: serviceEnv(variants[variant].database.url) });
      services.push(service);
      variants[variant].service = service;
      variants[variant].startupMs = Math.round(performance.now() - started);
    }
    await sleep(1000);
    const idle = {
      one: await memoryOf(variants.one.service!),
      many: await memoryOf(variants.many.service!),
    };
    log(
      `[providers] idle: 1 provider rss ${idle.one.rss_mb} MB heap ${idle.one.heap_used_mb} MB; ` +
        `${providers} providers rss ${idle.many.rss_mb} MB heap ${idle.many.heap_used_mb} MB`,
    );

    const rounds: ProviderRound[] = [];
    const failureSamples: string[] = [];
    for (let index = 0; index < providerRounds; index++) {
      // Alternate the order, so neither always follows the other.
      const order: Variant[] = index % 2 === 0 ? ['one', 'many'] : ['many', 'one'];
      for (const variant of order) {
        const service = variants[variant].service!;
        const sampler = new ResourceSampler(service.pid);
        sampler.start();
        let sso: SsoPhaseResult;
        const started = performance.now();
        try {
          sso = await ssoPhase({
            bench,
            baseUrl: service.url,
            users: ssoUsers,
            durationS: roundSeconds,
            connections: options.options.loginConnections,
          });
        } catch (error) {
          sampler.stop();
          throw error;
        }
        const result = roundOf(
          index,
          variant,
          { ...sso, server: sampler.stop() },
          performance.now() - started,
        );
        failureSamples.push(...sso.failure_samples.slice(0, 5 - failureSamples.length));
        rounds.push(result);
        log(
          `[providers] round ${index + 1} ${variant === 'one' ? 1 : providers} provider(s): p50 ${result.sequential_p50_ms} ms ` +
            `(overhead ${result.overhead_p50_ms} ms), ${result.concurrent_logins_per_s} logins/s, ` +
            `${result.cpu_ms_per_login} ms CPU a login, failures ${result.failures}`,
        );
      }
    }
    await sleep(1000);
    const after = {
      one: await memoryOf(variants.one.service!),
      many: await memoryOf(variants.many.service!),
    };

    const summarise = (variant: Variant): VariantSummary => {
      const mine = rounds.filter((entry) => entry.variant === variant);
      return {
        registered_providers: variant === 'one' ? 1 : providers,
        startup_ms: variants[variant].startupMs!,
        sequential_p50_ms: median(mine.map((entry) => entry.sequential_p50_ms)),
        sequential_p99_ms: median(mine.map((entry) => entry.sequential_p99_ms)),
        overhead_p50_ms: median(mine.map((entry) => entry.overhead_p50_ms)),
        concurrent_logins_per_s: median(mine.map((entry) => entry.concurrent_logins_per_s)),
        cpu_ms_per_login: median(mine.map((entry) => entry.cpu_ms_per_login ?? 0)) || null,
        failures: mine.reduce((sum, entry) => sum + entry.failures, 0),
        memory_idle: idle[variant],
        memory_after_rounds: after[variant],
      };
    };
    const one = summarise('one');
    const many = summarise('many');
    const perProvider = (a: number | null, b: number | null) =>
      a !== null && b !== null && providers > 1 ? round(((b - a) * 1024) / (providers - 1), 1) : null;

    // The service with one provider is done: it would only take CPU from what follows.
    await variants.one.service!.stop();

    log(`[providers] the directory of ${providers} providers built in this process`);
    const directoryInProcess = await directoryCost(
      variants.one.registry,
      variants.many.registry,
      key,
      DEFAULT_REDIRECT_URI,
    );
    log(
      `[providers]   load ${directoryInProcess.load_ms} ms, ${directoryInProcess.heap_per_provider_kib} KiB heap a provider, ` +
        `refresh after a change ${directoryInProcess.refresh_after_change_ms} ms, ` +
        `select ${directoryInProcess.select_ns.one} ns (1) vs ${directoryInProcess.select_ns.many} ns (${providers})`,
    );

    // More instances on the database of 1,000, one per poll interval measured.
    log(
      `[providers] propagation: ${registryChanges} add + disable, instances polling every ${registryPollMs.join(', ')} ms`,
    );
    const instances = [];
    for (const pollMs of registryPollMs) {
      const service = await startService({
        root,
        env: serviceEnv(variants.many.database.url, { SSO_REGISTRY_POLL_MS: String(pollMs) }),
      });
      services.push(service);
      instances.push({ pollMs, url: service.url });
    }
    const propagation = await propagationPhase({
      bench,
      writer: variants.many.registry,
      instances,
      changes: registryChanges,
      ssoUsers,
      log,
    });

    return {
      registration_ms: registrationMs,
      round_seconds: roundSeconds,
      one,
      many,
      ratios: {
        sequential_p50: ratio(many.sequential_p50_ms, one.sequential_p50_ms),
        overhead_p50: ratio(many.overhead_p50_ms, one.overhead_p50_ms),
        concurrent_logins_per_s: ratio(many.concurrent_logins_per_s, one.concurrent_logins_per_s),
        cpu_ms_per_login: ratio(many.cpu_ms_per_login, one.cpu_ms_per_login),
      },
      per_provider_kib: {
        rss: perProvider(idle.one.rss_mb, idle.many.rss_mb),
        heap: perProvider(idle.one.heap_used_mb, idle.many.heap_used_mb),
      },
      directory_in_process: directoryInProcess,
      rounds,
      propagation,
      failure_samples: failureSamples,
    };
  } finally {
    for (const service of services) await service.stop(5000);
    for (const registry of registries) await registry.close().catch(() => undefined);
    for (const database of databases) {
      await database
        .drop()
        .catch((error: unknown) => log(`could not drop ${database.name}: ${String(error)}`));
    }
    await rm(tmp, { recursive: true, force: true });
  }
}
