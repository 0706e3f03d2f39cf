import type { Route } from '../http/route.js';

export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/** `GET /metrics` in the Prometheus text format. */
export function metricsRoutes(metrics: MetricsSource): Route[] {
  return [
    {
      method: 'GET',
      path: '/metrics',
      handle: async (_request, reply) => reply.text(metrics.contentType, await metrics.render()),
    },
  ];
}
