import { ssoError } from './openid-errors.js';

/**
 * The largest answer read from the OpenID provider: 256 KB. Real token answers are a few KB,
 * discovery documents and key sets tens of KB; a provider (or anyone in its place) sending
 * megabytes would otherwise have them parsed, stored with the session and read back later.
 */
export const PROVIDER_ANSWER_MAX_BYTES = 256 * 1024;

/** Statuses whose Response cannot carry a body: passed on as they are. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function tooLarge(): Error {
  return ssoError('SSO_INVALID', `provider answer larger than ${PROVIDER_ANSWER_MAX_BYTES / 1024} KB`);
}

/**
 * Reads the whole answer, refusing it (SSO_INVALID) as soon as it passes `maxBytes`: by its
 * declared Content-Length before reading, or while reading when it has none. The caller's time-out
 * still bounds the reading. Returns an equivalent Response over the bytes read.
 */
export async function boundedResponse(
  response: Response,
  maxBytes = PROVIDER_ANSWER_MAX_BYTES,
): Promise<Response> {
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bounded = new Response(Buffer.concat(chunks), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // openid-client reads the answer's URL (redirect checks); a constructed Response has none.
  Object.defineProperty(bounded, 'url', { value: response.url });
  return bounded;
}
