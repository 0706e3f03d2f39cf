/**
 * A fast run of the real benchmark (`scripts/bench.ts`, ~1 s a phase) on PGlite, and on PostgreSQL
 * and one Redis when TEST_DATABASE_URL is set: checks that every phase ran and the session phase
 * saw no errors. The Redis Cluster's run (with its failover window) is in the fault suite
 * (test/faults/bench-cluster.test.ts). It asserts no performance figure: those live in
 * docs/performance.md (`npm run bench`).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { BenchReport } from '../../scripts/bench/run.js';
import { runBenchSmoke } from '../support/bench-smoke.js';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from '../support/global-setup.js';

const pgUrl = process.env.TEST_DATABASE_URL;

describe('benchmark (smoke run, no thresholds)', () => {
  let report: BenchReport;
  let stderr = '';

  beforeAll(async () => {
    ({ report, stderr } = await runBenchSmoke({
      // The Redis store keeps its users in PostgreSQL: it runs where PostgreSQL does.
      BENCH_STORES: pgUrl ? 'pglite,postgres,fastify,redis,providers,keys' : 'pglite,keys',
      BENCH_REDIS_SESSIONS: '2000',
      // Per-customer providers, small: 20 registered, one round each, one change seen by two instances.
      BENCH_PROVIDERS: '20',
      BENCH_PROVIDER_ROUNDS: '1',
      BENCH_REGISTRY_POLL_MS: '500,100',
      BENCH_REGISTRY_CHANGES: '1',
      ...(pgUrl ? { BENCH_DATABASE_URL: pgUrl } : {}),
      // The suite's migrated PGlite template (test/support/global-setup.ts) spares an initdb.
      BENCH_PGLITE_TEMPLATE: inject('pgliteTemplatePath'),
    }));
    // Every phase on four stores, after a build of dist on a fresh clone: 154 s on an ordinary
    // day, over 240 s on a slow one. A hang still ends here; a slow machine must not.
  }, 600_000);

  it('measures forged tokens against a hostile key set, with and without the bounds', () => {
    const keys = report.hostile_keys!;
    expect(keys.unbounded.signature_checks_per_token).toBe(keys.key_set.matching_the_forged_kid);
    expect(keys.bounded.signature_checks_per_token).toBeLessThan(keys.key_set.matching_the_forged_kid);
    expect(keys.bounded.keys_refused).toBeGreaterThan(0);
    expect(keys.bounded.other_provider_verify_ms.n).toBe(keys.bounded.forged_tokens);
  });

  it('measures every ceiling', () => {
    expect(report.ceilings.argon2.verifies).toBeGreaterThan(0);
    expect(report.ceilings.bare_koa?.requests).toBeGreaterThan(0);
    expect(report.ceilings.bare_koa?.errors).toBe(0);
    if (pgUrl) expect(report.ceilings.pg_lookup?.queries).toBeGreaterThan(0);
    // Right codes matched and wrong ones refused: the figure is of real verifications.
    const totp = report.ceilings.totp_verify;
    expect(totp.right_codes_matched + totp.wrong_codes_refused).toBe(totp.verifications);
    expect(totp.totp_verify_cpu_us).toBeGreaterThan(0);
  });

  const stores = pgUrl ? (['pglite', 'postgres', 'fastify', 'redis'] as const) : (['pglite'] as const);
  for (const store of stores) {
    it(`runs every phase against ${store}`, () => {
      const result = report.stores[store];
      expect(result, stderr.slice(-2000)).toBeDefined();
      const phases = result!.phases;
      for (const name of [
        'session_get',
        'session_get_2',
        'session_get_3',
        'password_login',
        'failed_login',
      ] as const) {
        expect(phases[name].requests, name).toBeGreaterThan(0);
      }
      for (const name of ['session_get', 'session_get_2', 'session_get_3'] as const) {
        expect(phases[name].errors, name).toBe(0);
        expect(phases[name].non_2xx, name).toBe(0);
      }
      expect(phases.password_login.status['200']).toBe(phases.password_login.requests);
      // The two-step login: TOTP users enrolled through the API, each login verified with a fresh code.
      expect(phases.two_step_login.totp_users).toBe(16);
      expect(phases.two_step_login.two_step.logins, stderr.slice(-2000)).toBeGreaterThan(0);
      expect(phases.two_step_login.two_step.errors).toBe(0);
      expect(phases.two_step_login.one_step.logins).toBeGreaterThan(0);
      expect(phases.two_step_login.one_step.errors).toBe(0);
      if (store === 'postgres') {
        // Tracing's price: both services answered every round, and the traced one's spans reached
        // the collector.
        const tracing = result!.tracing!;
        expect(tracing.untraced.requests).toBeGreaterThan(0);
        expect(tracing.traced.requests).toBeGreaterThan(0);
        expect(tracing.untraced.non_2xx + tracing.untraced.errors).toBe(0);
        expect(tracing.traced.non_2xx + tracing.traced.errors).toBe(0);
        expect(tracing.traced.exports_received).toBeGreaterThan(0);
        expect(tracing.traced.bytes_received).toBeGreaterThan(tracing.traced.requests * 100);
        expect(report.ratios.postgres?.session_get_traced_vs_untraced).toBe(tracing.traced_vs_untraced);
      } else expect(result!.tracing).toBeUndefined();
      expect(report.ratios[store]?.two_step_login_vs_one_step).toBeGreaterThan(0);
      // Each variant's own CPU per login, so a rate can be told from a load that left the cores idle.
      expect(phases.two_step_login.two_step.machine_cpu_ms_per_login).toBeGreaterThan(0);
      expect(phases.two_step_login.one_step.machine_cpu_pct).toBeGreaterThan(0);
      expect(phases.two_step_login.cpu_two_step_vs_one_step).toBeGreaterThan(0);
      expect(phases.sso_login.sequential.logins).toBeGreaterThan(0);
      expect(phases.sso_login.sequential.failures).toBe(0);
      expect(phases.sso_login.concurrent.logins).toBeGreaterThan(0);
      expect(phases.failed_login.status['401']).toBeGreaterThan(0);
      expect(phases.login_failure_timing.unknown_user_ms.n).toBeGreaterThan(0);
      expect(phases.login_failure_timing.wrong_password_ms.n).toBeGreaterThan(0);
      expect(phases.login_failure_timing.same_answer).toBe(true);
      expect(result!.memory_leak_check.rss_after_third_mb).not.toBeUndefined();
      expect(result!.exit_code).toBe(0);
      expect(report.ratios[store]?.session_get_vs_bare_koa).toBeGreaterThan(0);
      expect(report.ratios[store]?.password_login_vs_argon2).toBeGreaterThan(0);
    });
  }

  it.skipIf(!pgUrl)('measures Redis: the client ceiling and memory per session [redis]', () => {
    for (const store of ['redis'] as const) {
      const result = report.stores[store]!;
      expect(result.redis_lookup?.queries, store).toBeGreaterThan(0);
      expect(result.redis_memory?.sessions, store).toBe(2000);
      // A session takes some hundreds of bytes to a few KiB: a figure outside that is a wrong measurement.
      expect(result.redis_memory?.bytes_per_session, store).toBeGreaterThan(200);
      expect(result.redis_memory?.bytes_per_session, store).toBeLessThan(8192);
      expect(report.ratios[store]?.session_get_vs_redis_lookup, store).toBeGreaterThan(0);
      expect(report.ratios[store]?.session_get_vs_postgres, store).toBeGreaterThan(0);
    }
  });

  it.skipIf(!pgUrl)(
    'compares the transports: Fastify beside Koa, each with its bare ceiling [fastify]',
    () => {
      expect(report.ceilings.bare_fastify?.requests).toBeGreaterThan(0);
      expect(report.ceilings.bare_fastify?.errors).toBe(0);
      expect(report.ratios.fastify?.session_get_vs_bare_fastify).toBeGreaterThan(0);
      expect(report.ratios.fastify?.session_get_vs_postgres).toBeGreaterThan(0);
    },
  );

  it.skipIf(!pgUrl)(
    'measures per-customer providers: logins with 1 and with 20 registered, memory, a registry change on two instances',
    () => {
      const providers = report.providers!;
      expect(providers, stderr.slice(-2000)).toBeTruthy();
      expect([providers.one.registered_providers, providers.many.registered_providers]).toEqual([1, 20]);
      // One round each, interleaved, every login served.
      expect(providers.rounds.map((entry) => entry.variant)).toEqual(['one', 'many']);
      for (const entry of providers.rounds) {
        expect(entry.failures, entry.variant).toBe(0);
        expect(entry.concurrent_logins_per_s, entry.variant).toBeGreaterThan(0);
      }
      expect(providers.ratios.sequential_p50).toBeGreaterThan(0);
      for (const variant of ['one', 'many'] as const) {
        expect(providers[variant].memory_idle.rss_mb, variant).toBeGreaterThan(0);
        expect(providers[variant].memory_idle.heap_used_mb, variant).toBeGreaterThan(0);
      }
      expect(providers.directory_in_process.providers).toBe(20);
      expect(providers.directory_in_process.refresh_after_change_ms).toBeGreaterThan(0);
      // The change reached both instances (add, then disable), each at its own poll interval.
      expect(providers.propagation.instances.map((instance) => instance.poll_ms)).toEqual([500, 100]);
      for (const instance of providers.propagation.instances) {
        expect(instance.add_ms, String(instance.poll_ms)).toHaveLength(1);
        expect(instance.disable_ms, String(instance.poll_ms)).toHaveLength(1);
        // Seen when the instance polled, never before the write.
        expect(instance.disable_ms[0]).toBeGreaterThan(0);
        expect(instance.statuses_seen['401']).toBeGreaterThan(0);
      }
    },
  );

  it.skipIf(!pgUrl)('measures forward auth direct and through nginx, on both transports', () => {
    for (const store of ['postgres', 'fastify'] as const) {
      const phases = report.stores[store]!.forward_auth!;
      expect(phases.session_check.status['204'], store).toBe(phases.session_check.requests);
      expect(phases.session_check_via_nginx.status['200'], store).toBe(
        phases.session_check_via_nginx.requests,
      );
      expect(phases.nginx_proxy_only.status['200'], store).toBe(phases.nginx_proxy_only.requests);
      expect(report.ratios[store]?.session_check_via_nginx_vs_direct, store).toBeGreaterThan(0);
    }
  });
});
