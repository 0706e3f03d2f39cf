/**
 * The SSO phase against a real local OpenID provider (test/support/oidc/test-provider.ts, in this
 * process). Every login needs a fresh authorization code, so codes are issued beforehand (each by a
 * full browser-like flow at the provider), then redeemed through `POST /api/v1/openid/login/`.
 *
 * Our own overhead per login: the login's latency minus the time the provider spent serving the
 * requests Gatehouse made to it meanwhile (token endpoint, and JWKS/discovery when fetched), timed by
 * a middleware inside the provider. Measured on sequential logins, so every provider request belongs
 * to the login in flight.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  DEFAULT_REDIRECT_URI,
  type IssuedCode,
  startTestProvider,
  type TestProvider,
} from '../../test/support/oidc/test-provider.js';
import { JSON_HEADERS, keepAliveAgent, pooled, request } from './load.js';
import { MAX_PROPAGATION_INSTANCES, MAX_REGISTRY_CHANGES } from './options.js';
import { BENCH_GROUP, ssoUser } from './seed.js';
import { type LatencySummary, round, Samples } from './stats.js';

export interface BenchProvider {
  provider: TestProvider;
  /** Service env for this provider. */
  env: Record<string, string>;
  /** Server-side time of every provider request, by path, since the last reset. */
  timings: Array<{ path: string; ms: number; at: number }>;
  close(): Promise<void>;
}

let timedSink: BenchProvider['timings'] | undefined;

/**
 * Times every request the provider serves, from arrival to the last byte of the answer: wraps the
 * request handler oidc-provider (a Koa application) hands to the test provider's HTTP server. Only
 * in this benchmark process.
 */
async function timeProviderRequests(sink: BenchProvider['timings']): Promise<void> {
  timedSink = sink;
  const { Provider } = await import('oidc-provider');
  const prototype = Provider.prototype as unknown as {
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    __benchTimed?: boolean;
  };
  if (prototype.__benchTimed) return;
  const original = prototype.callback;
  prototype.callback = function timedCallback(this: unknown) {
    const handle = original.call(this);
    return (req: IncomingMessage, res: ServerResponse) => {
      const started = performance.now();
      const path = (req.url ?? '').split('?', 1)[0] ?? '';
      res.once('finish', () => timedSink?.push({ path, ms: performance.now() - started, at: started }));
      return handle(req, res);
    };
  };
  prototype.__benchTimed = true;
}

/** The redirect URI of the provider added by the `index`th registry change (scripts/bench/propagation.ts). */
export const changeRedirectUri = (index: number) => `${DEFAULT_REDIRECT_URI}?change=${index}`;

/**
 * Users kept for the registry changes, after the `ssoUsers` of the login phases: an account is bound
 * to the provider it first logged in through, so each change's provider logs in users of its own.
 */
export const CHANGE_USERS = MAX_REGISTRY_CHANGES * MAX_PROPAGATION_INSTANCES;
export const changeUser = (ssoUsers: number, change: number, instance: number) =>
  ssoUser(ssoUsers + change * MAX_PROPAGATION_INSTANCES + instance);

export async function startBenchProvider(ssoUsers: number): Promise<BenchProvider> {
  const accounts: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < ssoUsers + CHANGE_USERS; i++) {
    accounts[ssoUser(i)] = { preferred_username: ssoUser(i), groups: [BENCH_GROUP] };
  }
  const timings: BenchProvider['timings'] = [];
  await timeProviderRequests(timings);
  const provider = await startTestProvider({
    accounts,
    redirectUris: [
      DEFAULT_REDIRECT_URI,
      ...Array.from({ length: MAX_REGISTRY_CHANGES }, (_, index) => changeRedirectUri(index)),
    ],
  });
  const client = provider.clients.gatehouse;
  return {
    provider,
    timings,
    env: {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: client.clientId,
      OIDC_CLIENT_SECRET: client.clientSecret!,
      OIDC_CLIENT_AUTH: 'client_secret_basic',
      OIDC_REDIRECT_URIS: DEFAULT_REDIRECT_URI,
      OIDC_ALLOW_INSECURE_HTTP: 'true',
      SSO_USER_LEVELS: '8',
    },
    close: () => provider.close(),
  };
}

interface PendingCode {
  code: IssuedCode;
  nonce: string;
}

/** Issues codes (4 flows at a time) until `count` or `budgetMs`; at least `minimum`. */
async function issueCodes(
  bench: BenchProvider,
  users: number,
  count: number,
  budgetMs: number,
  minimum: number,
): Promise<{ codes: PendingCode[]; perSecond: number }> {
  const codes: PendingCode[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (codes.length < count && (performance.now() - started < budgetMs || codes.length < minimum)) {
        const index = next++;
        const nonce = randomBytes(16).toString('base64url');
        const code = await bench.provider.issueCode({ accountId: ssoUser(index % users), nonce });
        codes.push({ code, nonce });
      }
    }),
  );
  return { codes, perSecond: round(codes.length / ((performance.now() - started) / 1000), 1) };
}

function loginRequest(pending: PendingCode) {
  return {
    method: 'POST' as const,
    path: '/api/v1/openid/login/',
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({
      nonce: pending.nonce,
      authorization_code: pending.code.code,
      redirect_uri: DEFAULT_REDIRECT_URI,
    }),
  };
}

export interface SsoPhaseResult {
  codes_issued_per_s: number;
  /** The first failed answers, if any (status and start of the body). */
  failure_samples: string[];
  sequential: {
    logins: number;
    failures: number;
    latency_ms: LatencySummary;
    provider_ms: LatencySummary;
    /** Latency minus provider time, per login: what Gatehouse itself adds. */
    overhead_ms: LatencySummary;
    provider_paths: Record<string, number>;
  };
  concurrent: {
    connections: number;
    logins: number;
    failures: number;
    req_per_s: number;
    latency_ms: LatencySummary;
    status: Record<string, number>;
  };
}

/**
 * oidc-provider's in-memory store is an LRU of 1,000 entries and every issued code takes several
 * (session, grant, code...): codes are issued in small batches just before they are redeemed, and
 * only the redeeming is timed.
 */
const CODE_BATCH = 50;

export async function ssoPhase(options: {
  bench: BenchProvider;
  baseUrl: string;
  users: number;
  durationS: number;
  connections: number;
}): Promise<SsoPhaseResult> {
  const { bench, baseUrl } = options;
  const agent: http.Agent = keepAliveAgent(options.connections);
  const failureSamples: string[] = [];
  const noteFailure = (answer: { status: number; body: string }) => {
    if (failureSamples.length < 5) failureSamples.push(`${answer.status} ${answer.body.slice(0, 300)}`);
  };
  let issued = 0;
  let issuingMs = 0;
  const batch = async (size: number) => {
    const started = performance.now();
    const { codes } = await issueCodes(bench, options.users, size, 0, size);
    issuingMs += performance.now() - started;
    issued += codes.length;
    return codes;
  };
  try {
    // Warm-up: the first login makes Gatehouse fetch discovery and the JWKS.
    for (const pending of await batch(2)) {
      const answer = await request(agent, baseUrl, loginRequest(pending));
      if (answer.status !== 200) throw new Error(`SSO warm-up login failed: ${answer.status} ${answer.body}`);
    }
    const halfMs = (options.durationS * 1000) / 2;
    const minimum = options.durationS < 5 ? 3 : 20;

    // Sequential logins, each attributed its provider time.
    const latency = new Samples();
    const providerTime = new Samples();
    const overhead = new Samples();
    const paths: Record<string, number> = {};
    let sequentialFailures = 0;
    let sequentialMs = 0;
    while (sequentialMs < halfMs || latency.count + sequentialFailures < minimum) {
      const codes = await batch(CODE_BATCH);
      const started = performance.now();
      for (const pending of codes) {
        bench.timings.length = 0;
        const answer = await request(agent, baseUrl, loginRequest(pending));
        if (answer.status !== 200) {
          sequentialFailures++;
          noteFailure(answer);
          continue;
        }
        let spent = 0;
        for (const timing of bench.timings) {
          spent += timing.ms;
          paths[timing.path] = (paths[timing.path] ?? 0) + 1;
        }
        latency.add(answer.ms);
        providerTime.add(spent);
        overhead.add(answer.ms - spent);
      }
      sequentialMs += performance.now() - started;
    }

    // Concurrent logins: throughput over the time spent redeeming.
    const concurrentLatency = new Samples();
    const status: Record<string, number> = {};
    let concurrentMs = 0;
    let used = 0;
    while (concurrentMs < halfMs || used < Math.min(minimum, options.connections * 4)) {
      const codes = await batch(Math.max(CODE_BATCH, options.connections * 4));
      bench.timings.length = 0;
      const started = performance.now();
      await pooled(codes.length, options.connections, async (index) => {
        used++;
        const answer = await request(agent, baseUrl, loginRequest(codes[index]!));
        status[answer.status] = (status[answer.status] ?? 0) + 1;
        if (answer.status === 200) concurrentLatency.add(answer.ms);
        else noteFailure(answer);
      });
      concurrentMs += performance.now() - started;
    }
    bench.timings.length = 0;
    const ok = status['200'] ?? 0;
    return {
      codes_issued_per_s: round(issued / (issuingMs / 1000), 1),
      failure_samples: failureSamples,
      sequential: {
        logins: latency.count,
        failures: sequentialFailures,
        latency_ms: latency.summary(),
        provider_ms: providerTime.summary(),
        overhead_ms: overhead.summary(),
        provider_paths: paths,
      },
      concurrent: {
        connections: options.connections,
        logins: ok,
        failures: used - ok,
        req_per_s: round(ok / (concurrentMs / 1000), 1),
        latency_ms: concurrentLatency.summary(),
        status,
      },
    };
  } finally {
    agent.destroy();
  }
}
