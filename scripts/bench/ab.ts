/**
 * Interleaved A/B of service variants on PostgreSQL: every variant runs at once on the same
 * database, and short rounds alternate between them, so the machine's drift (other tenants, the
 * load generator, PostgreSQL's caches) hits each variant alike. A single benchmark run moves by
 * 10-30 % from one run to the next on a shared 2-core machine; this is how a change was judged.
 *
 * Usage: npx tsx scripts/bench/ab.ts 'base:' 'small-young:--max-semi-space-size=4' 'pool8:DATABASE_POOL_SIZE=8'
 * Each argument is `label:` followed by space-separated node flags (`--...`) and NAME=VALUE
 * environment settings. AB_PHASE=session (default) or login; AB_ROUNDS (5), AB_SECONDS (3).
 * Needs `npm run build` first (the variants run as `npm start` does, plus their own flags).
 *
 * Two versions of the code: build each in a checkout of its own (`git worktree add`, node_modules
 * linked) and give a variant its checkout as `AB_ROOT=/path` (not passed to the service); a variant
 * without one runs this checkout. The users are imported with the first variant's checkout.
 * Example: npx tsx scripts/bench/ab.ts 'new:AB_ROOT=/work/wt/ab-new' 'old:AB_ROOT=/work/wt/ab-old'
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createThrowawayDatabase } from './databases.js';
import { runLoad } from './load.js';
import { benchOptionsFromEnv } from './options.js';
import { ResourceSampler } from './proc.js';
import { createSessions, loginRequest, sessionRequests } from './run.js';
import { BENCH_PASSWORD, passwordUser, seed } from './seed.js';
import { type RunningService, startService } from './service.js';
import { median, round } from './stats.js';

interface Variant {
  label: string;
  /** The checkout whose build this variant runs. */
  root: string;
  nodeArgs: string[];
  env: Record<string, string>;
}

function parseVariant(raw: string): Variant {
  const colon = raw.indexOf(':');
  if (colon <= 0) throw new Error(`expected label:settings, got "${raw}"`);
  const variant: Variant = { label: raw.slice(0, colon), root: process.cwd(), nodeArgs: [], env: {} };
  for (const token of raw
    .slice(colon + 1)
    .split(/\s+/)
    .filter(Boolean)) {
    if (token.startsWith('--')) variant.nodeArgs.push(token);
    else {
      const eq = token.indexOf('=');
      if (eq <= 0) throw new Error(`expected --flag or NAME=VALUE, got "${token}"`);
      if (token.slice(0, eq) === 'AB_ROOT') variant.root = token.slice(eq + 1);
      else variant.env[token.slice(0, eq)] = token.slice(eq + 1);
    }
  }
  return variant;
}

async function main(): Promise<void> {
  const variants = process.argv.slice(2).map(parseVariant);
  if (variants.length < 2) throw new Error('give at least two variants');
  const phase = process.env.AB_PHASE ?? 'session';
  const rounds = Number(process.env.AB_ROUNDS ?? 5);
  const seconds = Number(process.env.AB_SECONDS ?? 3);
  const options = benchOptionsFromEnv();
  const tmp = await mkdtemp(join(tmpdir(), 'gatehouse-ab-'));
  const database = await createThrowawayDatabase(options.adminDatabaseUrl);
  const services: RunningService[] = [];
  try {
    const storeEnv = { DATABASE_URL: database.url };
    await seed({
      root: variants[0]!.root,
      dir: tmp,
      env: storeEnv,
      plan: { passwordUsers: 200, ssoUsers: 0, ssoLevel: 8 },
    });
    const key = randomBytes(32).toString('base64');
    for (const variant of variants) {
      services.push(
        await startService({
          root: variant.root,
          env: { ...storeEnv, LOGIN_MAX_FAILURES: '1000', TOKEN_ENCRYPTION_KEY: key, ...variant.env },
          nodeArgs: variant.nodeArgs,
        }),
      );
    }
    const requests =
      phase === 'login'
        ? Array.from({ length: 200 }, (_, index) => loginRequest(passwordUser(index), BENCH_PASSWORD))
        : sessionRequests(await createSessions(services[0]!.url, 200, 200));
    const connections = phase === 'login' ? options.loginConnections : options.sessionConnections;
    const results = variants.map(() => ({
      rps: [] as number[],
      p99: [] as number[],
      rss: [] as number[],
      cpuUs: [] as number[],
    }));
    // The machine's load around the rounds: a shared machine's other work is part of the figures.
    const loadBefore = loadavg().map((value) => round(value, 2));
    for (const service of services) {
      await runLoad({ baseUrl: service.url, connections, durationS: 2, requests });
    }
    for (let roundIndex = 0; roundIndex < rounds; roundIndex++) {
      // Alternate the order too, so no variant always follows the same one.
      const order = variants.map((_, index) => index);
      if (roundIndex % 2 === 1) order.reverse();
      for (const index of order) {
        const sampler = new ResourceSampler(services[index]!.pid);
        sampler.start();
        const load = await runLoad({
          baseUrl: services[index]!.url,
          connections,
          durationS: seconds,
          requests,
        });
        const use = sampler.stop();
        results[index]!.rps.push(load.req_per_s);
        results[index]!.p99.push(load.latency_ms.p99);
        results[index]!.rss.push(use.rss_peak_mb ?? 0);
        // The service's own CPU time per request: what a request costs, whoever else holds the
        // CPU meanwhile (throughput on a loaded machine also measures the other tenants).
        const cpuUs = round(((use.cpu_pct ?? 0) / 100 / load.req_per_s) * 1e6, 1);
        results[index]!.cpuUs.push(cpuUs);
        process.stderr.write(
          `round ${roundIndex + 1} ${variants[index]!.label}: ${load.req_per_s} req/s, p99 ${load.latency_ms.p99} ms, cpu ${cpuUs} us/req, rss ${use.rss_peak_mb} MB, non-2xx ${load.non_2xx}\n`,
        );
      }
    }
    const base = median(results[0]!.rps);
    const summary = variants.map((variant, index) => ({
      variant: variant.label,
      req_per_s_median: median(results[index]!.rps),
      vs_first: round(median(results[index]!.rps) / base, 3),
      p99_ms_median: median(results[index]!.p99),
      cpu_us_per_req_median: median(results[index]!.cpuUs),
      req_per_s_rounds: results[index]!.rps,
      p99_ms_rounds: results[index]!.p99,
      rss_peak_mb_max: Math.max(...results[index]!.rss),
    }));
    const load_average = { before: loadBefore, after: loadavg().map((value) => round(value, 2)) };
    process.stdout.write(`${JSON.stringify({ phase, rounds, seconds, load_average, summary }, null, 2)}\n`);
  } finally {
    for (const service of services) await service.stop();
    await database.drop();
    await rm(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
