import { z } from 'zod';
import { defineRoute, type Route } from '../http/route.js';

export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/**
 * `GET /metrics` in the Prometheus text format. On the main port only when the operator says so:
 * the document lists it exactly when the table holds it.
 */
export function metricsRoutes(metrics: MetricsSource): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/metrics',
      session: 'none',
      openapi: {
        operationId: 'metrics',
        tag: 'operations',
        summary: 'Prometheus metrics',
        description:
          'Text exposition format. Served here only while METRICS_PORT is unset; otherwise only on ' +
          'METRICS_HOST:METRICS_PORT. See docs/metrics.md.',
        responses: [
          { status: 200, description: 'The metrics.', schema: z.string(), mediaType: 'text/plain' },
        ],
        errors: [],
      },
      handle: async ({ reply }) => reply.text(metrics.contentType, await metrics.render()),
    }),
  ];
}
