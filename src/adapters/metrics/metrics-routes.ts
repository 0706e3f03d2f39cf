import Router from '@koa/router';
import Koa from 'koa';
import { errorHandler } from '../http/error-handler.js';
import { securityHeaders } from '../http/security-headers.js';
import type { GatehouseState } from '../http/state.js';
import type { Logger } from '../logging/logger.js';

export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: MetricsSource): Router<GatehouseState> {
  const router = new Router<GatehouseState>();
  router.get('/metrics', async (ctx) => {
    const text = await metrics.render();
    ctx.set('Content-Type', metrics.contentType);
    ctx.body = text;
  });
  return router;
}

/**
 * The app for METRICS_PORT: `/metrics` and nothing else (every other path is a 404 problem), so
 * the scrape port can be kept off the public network.
 */
export function createMetricsApp(metrics: MetricsSource, logger: Logger): Koa<GatehouseState> {
  const app = new Koa<GatehouseState>();
  app.silent = true;
  app.use(errorHandler(logger));
  app.use(securityHeaders());
  app.use(metricsRoutes(metrics).routes());
  return app;
}
