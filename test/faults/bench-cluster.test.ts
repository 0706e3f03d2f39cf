/**
 * The benchmark's Redis Cluster run, briefly (~1 s a phase): every phase on a 3+3 cluster, the
 * Redis ceiling, memory per session and the failover window of a master killed under session
 * reads. In the fault suite: it kills a node, and takes a cluster's start-up time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../scripts/bench/run.js';
import { runBenchSmoke } from '../support/bench-smoke.js';
import { pgEnabled } from '../support/databases.js';

describe.skipIf(!pgEnabled)('benchmark on a Redis Cluster (smoke run, no thresholds) [redis-cluster]', () => {
  let report: BenchReport;

  beforeAll(async () => {
    ({ report } = await runBenchSmoke({
      BENCH_STORES: 'redis-cluster',
      BENCH_DATABASE_URL: process.env.TEST_DATABASE_URL!,
      BENCH_REDIS_SESSIONS: '2000',
      BENCH_FAILOVER_SECONDS: '10',
    }));
  }, 150_000);

  it('runs every phase on the cluster', () => {
    const result = report.stores['redis-cluster']!;
    for (const name of ['session_get', 'session_get_2', 'session_get_3'] as const) {
      expect(result.phases[name].requests, name).toBeGreaterThan(0);
      expect(result.phases[name].non_2xx, name).toBe(0);
    }
    expect(result.phases.password_login.status['200']).toBe(result.phases.password_login.requests);
    expect(result.redis_lookup?.queries).toBeGreaterThan(0);
    expect(result.redis_memory?.sessions).toBe(2000);
    expect(result.redis_memory?.bytes_per_session).toBeGreaterThan(200);
    expect(result.redis_memory?.bytes_per_session).toBeLessThan(8192);
    expect(report.ratios['redis-cluster']?.session_get_vs_redis_lookup).toBeGreaterThan(0);
  });

  it('measures the failover window of a killed master: no 401, no 500, back within 10 s', () => {
    const failover = report.stores['redis-cluster']!.failover!;
    expect(failover.victim_session_back_ms).toBeGreaterThan(0);
    expect(failover.live_session_401).toBe(0);
    expect(failover.statuses['500'] ?? 0).toBe(0);
    expect(report.goals['redis-cluster']?.failover_session_back_within_10s).toBe(true);
    console.info(
      `[faults] bench failover: a session on the killed master answered again after ${failover.victim_session_back_ms} ms; answers ${JSON.stringify(failover.statuses)}`,
    );
  });
});
