/**
 * The server span Gatehouse makes itself (traced-http-core.ts), in process with an in-memory
 * exporter: one SERVER span per request named by its route, continuing the caller's
 * `traceparent`, with the status of the answer; and, where the app embedding Gatehouse already
 * traces its server (its span is active), no second server span: the app's span is told the route.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  StackContextManager,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../src/adapters/http/exchange.js';
import { Reply } from '../../src/adapters/http/exchange.js';
import type { HttpCore, Matched } from '../../src/adapters/http/http-core.js';
import type { MatchedRoute } from '../../src/adapters/http/route.js';
import { tracedHttpCore } from '../../src/adapters/tracing/traced-http-core.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

function request(headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'GET',
    path: '/api/v1/sessions/q9bS1f2yQk6cJ0aH',
    header: (name) => headers[name] ?? '',
    query: {},
    params: {},
    clientAddress: '192.0.2.10',
    ownOrigin: 'http://gatehouse.test',
    raw: undefined as never,
  };
}

const routed: Matched = { route: { path: '/api/v1/sessions/:handle' } as MatchedRoute };

/** A core whose answer has this status (the wrapper is all that is under test). */
function coreAnswering(status: number): HttpCore {
  const reply = new Reply();
  reply.status = status;
  return tracedHttpCore({ answer: async () => reply } as unknown as HttpCore);
}

describe('the server span of a request', () => {
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new StackContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  it('is one SERVER span named by the route, under the caller’s traceparent, with the answer’s status', async () => {
    await coreAnswering(200).answer(request({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }), routed);
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('GET /api/v1/sessions/:handle');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(CALLER_TRACE);
    expect(span!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span!.attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/api/v1/sessions/:handle',
      'client.address': '192.0.2.10',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    // The path (it names a session handle) is in no attribute.
    expect(JSON.stringify(span!.attributes)).not.toContain('q9bS1f2yQk6cJ0aH');
  });

  it('starts a trace of its own without a traceparent; a request no route serves is named by its method', async () => {
    await coreAnswering(404).answer(request(), { route: null });
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('GET');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.attributes['http.route']).toBeUndefined();
    // A 4xx is the client's error, not the server's.
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('is an ERROR on a 5xx', async () => {
    await coreAnswering(503).answer(request(), routed);
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes['http.response.status_code']).toBe(503);
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('is not made where the embedding app’s own server span is active: that span is told the route', async () => {
    const host = provider.getTracer('host-app').startSpan('GET', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(ROOT_CONTEXT, host), () => coreAnswering(200).answer(request(), routed));
    host.end();
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('GET /api/v1/sessions/:handle');
    expect(span!.instrumentationScope.name).toBe('host-app');
    expect(span!.attributes['http.route']).toBe('/api/v1/sessions/:handle');
  });
});
