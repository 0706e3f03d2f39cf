/**
 * Tracing's price on the session GET (issue 31): two fresh services on the same store and
 * sessions, one untraced and one exporting every request's spans (`OTEL_TRACES_SAMPLER=always_on`,
 * OTLP http/protobuf) to a local collector that takes everything (otlp-sink.mjs), driven in
 * alternating rounds so both see the same machine. The figure is the geometric mean of each
 * round's traced over its neighbouring untraced throughput; the service's CPU per request is read
 * beside it (the other tenants of a shared machine move it less).
 */
import { type LoadRequest, runLoad } from './load.js';
import { startPortChild } from './port-child.js';
import { ResourceSampler } from './proc.js';
import { type RunningService, startService } from './service.js';
import { median, round } from './stats.js';

export interface TracedVariant {
  req_per_s_rounds: number[];
  cpu_us_per_req_rounds: number[];
  requests: number;
  non_2xx: number;
  errors: number;
}

export interface TracingReport {
  protocol: 'http/protobuf';
  sampler: 'always_on';
  connections: number;
  rounds: number;
  seconds_per_round: number;
  untraced: TracedVariant;
  traced: TracedVariant & { exports_received: number; bytes_received: number };
  /** Geometric mean over the rounds of traced / untraced requests per second. */
  traced_vs_untraced: number;
  /** Untraced over traced service CPU per request (medians): the same ratio by CPU. */
  cpu_untraced_vs_traced: number;
  floor: number;
  at_least_floor: boolean;
}

export async function tracingPhase(options: {
  root: string;
  /** The store and settings of the bench's service (both variants get the same). */
  env: Record<string, string>;
  requests: LoadRequest[];
  connections: number;
  rounds: number;
  secondsPerRound: number;
}): Promise<TracingReport> {
  const sink = await startPortChild('otlp-sink.mjs', {});
  const services: RunningService[] = [];
  try {
    const untracedService = await startService({ root: options.root, env: options.env });
    services.push(untracedService);
    const tracedService = await startService({
      root: options.root,
      env: {
        ...options.env,
        OTEL_SERVICE_NAME: 'gatehouse-bench',
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'always_on',
      },
    });
    services.push(tracedService);
    const variants = [
      { service: untracedService, result: emptyVariant() },
      { service: tracedService, result: emptyVariant() },
    ];
    // Warm-up (not reported): JIT, pools and heap sizing settle in both. Never longer than a
    // round: a smoke run's rounds are short, and its warm-up need be no longer.
    for (const { service } of variants) {
      await runLoad({
        baseUrl: service.url,
        connections: options.connections,
        durationS: Math.min(2, options.secondsPerRound),
        requests: options.requests,
      });
    }
    for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
      // Alternate which goes first, so neither always follows the other.
      const order = roundIndex % 2 === 0 ? variants : [...variants].reverse();
      for (const { service, result } of order) {
        const sampler = new ResourceSampler(service.pid);
        sampler.start();
        const load = await runLoad({
          baseUrl: service.url,
          connections: options.connections,
          durationS: options.secondsPerRound,
          requests: options.requests,
        });
        const use = sampler.stop();
        result.req_per_s_rounds.push(load.req_per_s);
        result.cpu_us_per_req_rounds.push(round(((use.cpu_pct ?? 0) / 100 / load.req_per_s) * 1e6, 1));
        result.requests += load.requests;
        result.non_2xx += load.non_2xx;
        result.errors += load.errors;
      }
    }
    // What the traced service still holds goes out at its stop (SIGTERM drains the exporter).
    await tracedService.stop();
    const stats = (await (await fetch(`${sink.url}/stats`)).json()) as { exports: number; bytes: number };
    const [untraced, traced] = [variants[0]!.result, variants[1]!.result];
    const logRatios = traced.req_per_s_rounds.map((rps, index) =>
      Math.log(rps / untraced.req_per_s_rounds[index]!),
    );
    const tracedVsUntraced = round(
      Math.exp(logRatios.reduce((sum, value) => sum + value, 0) / logRatios.length),
      3,
    );
    return {
      protocol: 'http/protobuf',
      sampler: 'always_on',
      connections: options.connections,
      rounds: options.rounds,
      seconds_per_round: options.secondsPerRound,
      untraced,
      traced: { ...traced, exports_received: stats.exports, bytes_received: stats.bytes },
      traced_vs_untraced: tracedVsUntraced,
      cpu_untraced_vs_traced: round(
        median(untraced.cpu_us_per_req_rounds) / median(traced.cpu_us_per_req_rounds),
        3,
      ),
      floor: 0.85,
      at_least_floor: tracedVsUntraced >= 0.85,
    };
  } finally {
    for (const service of services) await service.stop(5000);
    sink.child.kill('SIGTERM');
  }
}

function emptyVariant(): TracedVariant {
  return { req_per_s_rounds: [], cpu_us_per_req_rounds: [], requests: 0, non_2xx: 0, errors: 0 };
}
