import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import type { HttpRequest } from '../http/exchange.js';
import type { HttpCore } from '../http/http-core.js';
import { tracer } from './spans.js';

/** The W3C headers (`traceparent`, `tracestate`, `baggage`) read from a request. */
const REQUEST_HEADERS: TextMapGetter<HttpRequest> = {
  keys: () => [],
  get: (request, key) => request.header(key) || undefined,
};

/** The route's pattern, never the path itself (a path can name a session handle). */
function routeOf(matched: Parameters<HttpCore['answer']>[1]): string | undefined {
  return matched.route?.path;
}

/**
 * The HTTP core with a server span per request: `METHOD route` (the route's pattern; a request no
 * route serves is named by its method alone), `http.route`, the method, the client's address (as
 * TRUST_PROXY trusts it) and the answer's status, continuing the caller's `traceparent`. Gatehouse makes this span itself rather than through the
 * http instrumentation: the instrumentation binds the context to every listener of the request
 * and response and computes a dozen attributes per request, which cost more than half the
 * throughput of a session check when every request was sampled (docs/operations.md, "What it
 * costs"). Headers are never recorded (cookies), nor a query string (it could hold a code).
 *
 * In an app that embeds Gatehouse and traces its own server (its span is active here), that span
 * is told the route instead: one server span per request, the app's.
 */
export function tracedHttpCore(core: HttpCore): HttpCore {
  const answer = core.answer.bind(core);
  core.answer = (request, matched) => {
    const route = routeOf(matched);
    const hostSpan = trace.getActiveSpan();
    if (hostSpan) {
      if (route) {
        hostSpan.setAttribute('http.route', route);
        hostSpan.updateName(`${request.method} ${route}`);
      }
      return answer(request, matched);
    }
    const caller = propagation.extract(ROOT_CONTEXT, request, REQUEST_HEADERS);
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          ...(request.clientAddress ? { 'client.address': request.clientAddress } : {}),
        },
      },
      caller,
    );
    return context.with(trace.setSpan(caller, span), async () => {
      try {
        const reply = await answer(request, matched);
        endWithStatus(span, reply.status);
        return reply;
      } catch (error) {
        // HttpCore answers every failure itself; this is a bug in it, told by type only.
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.addEvent('exception', { 'exception.type': (error as Error | null)?.name ?? typeof error });
        span.end();
        throw error;
      }
    });
  };
  return core;
}

/** A 5xx is the server's failure (ERROR); a 4xx is the client's, not this span's (semconv). */
function endWithStatus(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
