import { z } from 'zod';
import { bool, commaList, int, url } from './variables.js';

/**
 * How many proxies stand in front of the service: `false` none, `true` one, or their number. The
 * client address is the entry that many places from the right of `X-Forwarded-For`: each proxy
 * appends the address it saw, so the entries further left were written by the client and prove
 * nothing.
 */
const proxyHops = z
  .string()
  .regex(/^(true|false|yes|no|\d+)$/, 'must be false, true, or the number of proxies in front (1 to 10)')
  .transform((value) =>
    value === 'true' || value === 'yes' ? 1 : value === 'false' || value === 'no' ? 0 : Number(value),
  )
  .pipe(z.number().int().min(0, 'must be 0 to 10').max(10, 'must be 0 to 10'));

/** The listeners: the API's, the metrics', and who may call them. */
export const httpVariables = z.object({
  PORT: int(0, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_TRANSPORT: z.enum(['koa', 'fastify'], { message: 'must be koa or fastify' }).default('koa'),
  TRUSTED_ORIGINS: commaList.pipe(z.array(url)).default([]),
  TRUST_PROXY: proxyHops.default(0),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
  HTTP_HEADERS_TIMEOUT_MS: int(100, 600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000).default(5_000),
  METRICS_PORT: int(0, 65535).optional(),
  METRICS_ON_MAIN_PORT: bool.default(false),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
});

export interface HttpConfig {
  http: {
    /** Which HTTP adapter serves the API (HTTP_TRANSPORT): the same routes and answers on either. */
    transport: 'koa' | 'fastify';
    port: number;
    host: string;
    /** Proxies in front of the service whose `X-Forwarded-*` headers are believed; 0: none. */
    trustedProxyHops: number;
    shutdownGraceMs: number;
    /** Slow-client limits of the listener (src/adapters/http/server.ts). */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /**
   * Where `/metrics` is served: a listener of its own (`port`), the main port (`onMainPort`,
   * an explicit switch), or nowhere (the default: metrics reveal traffic and failure patterns).
   */
  metrics: { port: number | null; host: string; onMainPort: boolean };
  trustedOrigins: string[];
}

export function httpSection(env: z.infer<typeof httpVariables>) {
  const problems: string[] = [];
  if (env.METRICS_ON_MAIN_PORT && env.METRICS_PORT !== undefined) {
    problems.push('METRICS_ON_MAIN_PORT: choose one place for /metrics: METRICS_PORT or the main port');
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  return {
    problems,
    build: (): HttpConfig => ({
      http: {
        transport: env.HTTP_TRANSPORT,
        port: env.PORT,
        host: env.HOST,
        trustedProxyHops: env.TRUST_PROXY,
        shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
        headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      },
      metrics: {
        port: env.METRICS_PORT ?? null,
        host: env.METRICS_HOST,
        onMainPort: env.METRICS_ON_MAIN_PORT,
      },
      trustedOrigins: env.TRUSTED_ORIGINS.map((origin) => new URL(origin).origin),
    }),
  };
}
