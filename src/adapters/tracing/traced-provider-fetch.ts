import { context, propagation, SpanKind } from '@opentelemetry/api';
import { ATTRIBUTES, inSpan } from './spans.js';

type ProviderEndpoint = 'discovery' | 'keys' | 'token' | 'revocation' | 'other';

/**
 * Which endpoint a request to a provider is, from the request alone (the traced fetch runs
 * before the metadata is known): discovery by its well-known path, the token endpoint and
 * revocation by the grant or parameters of their form body, a bare GET otherwise is the keys.
 */
function endpointOf(url: string, init: RequestInit | undefined): ProviderEndpoint {
  if (url.split('?', 1)[0]!.includes('/.well-known/')) return 'discovery';
  const body = init?.body;
  if (body instanceof URLSearchParams) {
    if (body.has('grant_type')) return 'token';
    if (body.has('token')) return 'revocation';
    return 'other';
  }
  return (init?.method ?? 'GET').toUpperCase() === 'GET' ? 'keys' : 'other';
}

/** The request's headers with the W3C `traceparent` (and `tracestate`) of the active span added. */
function withTraceContext(headers: RequestInit['headers']): Headers {
  const merged = new Headers(headers);
  propagation.inject(context.active(), merged, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  return merged;
}

/**
 * The fetch of provider `providerId` with a client span per request (`gatehouse.provider.<endpoint>`,
 * the provider id, the endpoint, the HTTP status) and the trace context sent along, so the
 * customer's provider can continue the trace. The URL is recorded without its query string.
 */
export function tracedProviderFetch(providerId: string, next: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const endpoint = endpointOf(url, init);
    return inSpan(
      `gatehouse.provider.${endpoint}`,
      {
        [ATTRIBUTES.provider]: providerId,
        [ATTRIBUTES.endpoint]: endpoint,
        'http.request.method': (init?.method ?? 'GET').toUpperCase(),
        'url.full': url.split('?', 1)[0]!,
      },
      async (span) => {
        const response = await next(input, { ...init, headers: withTraceContext(init?.headers) });
        span.setAttribute('http.response.status_code', response.status);
        return response;
      },
      undefined,
      SpanKind.CLIENT,
    );
  };
}
