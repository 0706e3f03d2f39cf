/**
 * Load over loopback: autocannon's programmatic API for the throughput phases, and a plain
 * keep-alive node:http client for sequential measurements and set-up.
 */
import http from 'node:http';
import autocannon, { type AutocannonRequest } from 'autocannon';
import { type LatencySummary, round, Samples } from './stats.js';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  durationS: number;
  /** Each connection loops over these, starting at a different offset, so keys rotate. */
  requests: LoadRequest[];
}

export interface LoadResult {
  requests: number;
  req_per_s: number;
  duration_s: number;
  connections: number;
  latency_ms: LatencySummary;
  errors: number;
  timeouts: number;
  non_2xx: number;
  status: Record<string, number>;
}

/** The service's `server.maxRequestsPerSocket` (src/adapters/http/server.ts). */
export const REQUESTS_PER_CONNECTION = 1000;

/** Runs autocannon for `durationS` and records every response's latency at full resolution. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const requests: AutocannonRequest[] = options.requests.map((request) => ({
    method: request.method,
    path: request.path,
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
  }));
  let clientIndex = 0;
  const latencies = new Samples();
  const instance = autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    // The service ends a keep-alive connection after 1,000 requests (server.maxRequestsPerSocket):
    // its 1,000th answer says `Connection: close` and later requests on it get 503. Browsers and
    // proxies reconnect; autocannon ignores the header, so it reconnects on this count instead
    // (the answer it reconnects on, one in 1,000, is not recorded).
    reconnectRate: REQUESTS_PER_CONNECTION,
    requests,
    // Every connection starts at its own offset in the request list.
    setupClient: (client) => {
      const offset = Math.floor((clientIndex++ * requests.length) / options.connections) % requests.length;
      client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
    },
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.add(responseTime);
  });
  const result = await instance;
  const status: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) status[code] = stats.count;
  const completed = latencies.count;
  return {
    requests: completed,
    req_per_s: round(completed / result.duration, 1),
    duration_s: result.duration,
    connections: options.connections,
    latency_ms: latencies.summary(),
    errors: result.errors,
    timeouts: result.timeouts,
    non_2xx: result.non2xx,
    status,
  };
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** One request over a keep-alive agent; `ms` is from send to the last byte. */
export function request(
  agent: http.Agent,
  baseUrl: string,
  input: LoadRequest,
  timeoutMs = 30_000,
): Promise<HttpAnswer> {
  const url = new URL(input.path, baseUrl);
  const body = input.body === undefined ? undefined : Buffer.from(input.body);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      url,
      {
        method: input.method,
        agent,
        headers: {
          ...input.headers,
          ...(body ? { 'content-length': String(body.length) } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${input.method} ${input.path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function pooled<T>(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const index = next++;
      results[index] = await work(index);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** The session cookie's value from a login answer's Set-Cookie headers. */
export function sessionCookieFrom(headers: http.IncomingHttpHeaders, name = 'sessionid'): string | null {
  for (const line of headers['set-cookie'] ?? []) {
    const [pair] = line.split(';', 1);
    if (pair?.startsWith(`${name}=`)) {
      const value = pair.slice(name.length + 1);
      if (value) return value;
    }
  }
  return null;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' } as const;
