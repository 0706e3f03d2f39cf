/**
 * A fast run of the real benchmark (`scripts/bench.ts`, ~1 s a phase) on PGlite, and on PostgreSQL
 * when TEST_DATABASE_URL is set: checks that every phase ran and the session phase saw no errors.
 * It asserts no performance figure: those live in docs/performance.md (`npm run bench`).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BenchReport } from '../../scripts/bench/run.js';
import { projectRoot } from '../../src/config/project-root.js';
// Type-only: brings in the `ProvidedContext` augmentation for `inject`.
import type {} from '../support/global-setup.js';

const root = projectRoot();
const pgUrl = process.env.TEST_DATABASE_URL;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** dist is missing, or older than some source or migration. */
function distIsStale(): boolean {
  const main = join(root, 'dist/src/start.cjs');
  if (!existsSync(main)) return true;
  const built = statSync(main).mtimeMs;
  return newestMtime(join(root, 'src')) > built || newestMtime(join(root, 'migrations')) > built;
}

describe('benchmark (smoke run, no thresholds)', () => {
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-bench-smoke-'));
  let report: BenchReport;
  let stderr = '';

  beforeAll(async () => {
    if (distIsStale()) {
      await promisify(execFile)(
        process.execPath,
        [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: root,
        },
      );
    }
    const output = join(work, 'bench.json');
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench.ts')], {
      cwd: root,
      env: {
        ...process.env,
        BENCH_SECONDS: '1',
        // The Redis stores keep their users in PostgreSQL: they run where it does.
        BENCH_STORES: pgUrl ? 'pglite,postgres,redis,redis-cluster' : 'pglite',
        BENCH_REDIS_SESSIONS: '2000',
        BENCH_FAILOVER_SECONDS: '10',
        ...(pgUrl ? { BENCH_DATABASE_URL: pgUrl } : {}),
        BENCH_SESSIONS: '16',
        BENCH_USERS: '16',
        BENCH_SSO_USERS: '4',
        BENCH_OUTPUT: output,
        // The suite's migrated PGlite template (test/support/global-setup.ts) spares an initdb.
        BENCH_PGLITE_TEMPLATE: inject('pgliteTemplatePath'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the benchmark exited with ${code}:\n${stderr.slice(-4000)}`);
    report = JSON.parse(stdout) as BenchReport;
    expect(JSON.parse(readFileSync(output, 'utf8'))).toEqual(report);
  }, 180_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('measures every ceiling', () => {
    expect(report.ceilings.argon2.verifies).toBeGreaterThan(0);
    expect(report.ceilings.bare_koa?.requests).toBeGreaterThan(0);
    expect(report.ceilings.bare_koa?.errors).toBe(0);
    if (pgUrl) expect(report.ceilings.pg_lookup?.queries).toBeGreaterThan(0);
  });

  const stores = pgUrl ? (['pglite', 'postgres', 'redis', 'redis-cluster'] as const) : (['pglite'] as const);
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
    for (const store of ['redis', 'redis-cluster'] as const) {
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

  it.skipIf(!pgUrl)('measures the failover window of a killed cluster master [redis-cluster]', () => {
    const failover = report.stores['redis-cluster']!.failover!;
    expect(failover.victim_session_back_ms).toBeGreaterThan(0);
    expect(failover.live_session_401).toBe(0);
    expect(failover.statuses['500'] ?? 0).toBe(0);
    expect(report.goals['redis-cluster']?.failover_session_back_within_10s).toBe(true);
  });
});
