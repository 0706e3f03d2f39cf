import { trace } from '@opentelemetry/api';
import type { HttpCore } from '../http/http-core.js';

/**
 * The HTTP core with its route told to the server span the http instrumentation opened for the
 * request: `http.route` (the route's pattern, never the path itself) and the span's name
 * `METHOD route`. A request no route serves keeps the instrumentation's name (`GET`).
 */
export function tracedHttpCore(core: HttpCore): HttpCore {
  const answer = core.answer.bind(core);
  core.answer = (request, matched) => {
    const route = matched.route?.path;
    const span = trace.getActiveSpan();
    if (span && route) {
      span.setAttribute('http.route', route);
      span.updateName(`${request.method} ${route}`);
    }
    return answer(request, matched);
  };
  return core;
}
