import type { CustomFetch, ServerMetadata } from 'openid-client';
import { boundedResponse } from './bounded-response.js';

/** One request to a provider, as metrics see it: which endpoint, how it went, how long it took. */
export interface OpenIdCallObservation {
  endpoint: 'discovery' | 'token' | 'jwks' | 'revocation' | 'userinfo' | 'other';
  outcome: 'ok' | 'client_error' | 'server_error' | 'timeout' | 'network_error';
  durationS: number;
}

export interface ProviderFetchOptions {
  /** Bound on every single request, its body read included. */
  timeoutMs: number;
  /** Fetch implementation (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Told the endpoint, outcome and duration (to the response headers) of each request (metrics). */
  observer?: (call: OpenIdCallObservation) => void;
}

/** What the fetch asks of its adapter at each request. */
export interface ProviderFetchContext {
  /** The exact redirect_uri of the code exchange under way, if any. */
  redirectUri(): string | undefined;
  /** The discovered metadata, once known: it names the endpoints a request is counted under. */
  metadata(): ServerMetadata | undefined;
}

/**
 * The one fetch of a provider adapter (discovery, token, JWKS, revocation): every request ends
 * after `timeoutMs` at the latest, its answer is read whole under that time-out and refused past
 * 256 KB, and the observer is told how it went.
 */
export function providerFetch(options: ProviderFetchOptions, context: ProviderFetchContext): CustomFetch {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return (url, init) => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const body = init.body;
    // The exact redirect_uri of the authorization request (openid-client would send the callback
    // URL without its query, normalised).
    const redirectUri = context.redirectUri();
    if (redirectUri && body instanceof URLSearchParams && body.get('grant_type') === 'authorization_code') {
      body.set('redirect_uri', redirectUri);
    }
    const started = performance.now();
    // Read whole here, under the same time-out, and refused past 256 KB.
    const request = fetchImpl(url, { ...init, signal } as RequestInit).then((response) =>
      boundedResponse(response),
    );
    if (!options.observer) return request;
    // Named when the answer came, from the metadata known by then.
    return observed(options.observer, () => endpointOf(url, context.metadata()), started, request);
  };
}

async function observed(
  observer: (call: OpenIdCallObservation) => void,
  endpoint: () => OpenIdCallObservation['endpoint'],
  started: number,
  request: Promise<Response>,
): Promise<Response> {
  const report = (outcome: OpenIdCallObservation['outcome']) =>
    observer({ endpoint: endpoint(), outcome, durationS: (performance.now() - started) / 1000 });
  try {
    const response = await request;
    report(response.status >= 500 ? 'server_error' : response.status >= 400 ? 'client_error' : 'ok');
    return response;
  } catch (error) {
    report((error as { name?: unknown } | null)?.name === 'TimeoutError' ? 'timeout' : 'network_error');
    throw error;
  }
}

function endpointOf(url: string, metadata: ServerMetadata | undefined): OpenIdCallObservation['endpoint'] {
  const bare = url.split('?', 1)[0]!;
  if (bare.includes('/.well-known/')) return 'discovery';
  if (!metadata) return 'other';
  const is = (endpoint: string | undefined) =>
    endpoint !== undefined && (url === endpoint || bare === endpoint);
  if (is(metadata.token_endpoint)) return 'token';
  if (is(metadata.jwks_uri)) return 'jwks';
  if (is(metadata.revocation_endpoint)) return 'revocation';
  if (is(metadata.userinfo_endpoint)) return 'userinfo';
  return 'other';
}
