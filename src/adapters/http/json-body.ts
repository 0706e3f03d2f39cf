import { DomainError } from '../../domain/shared/domain-error.js';
import { BODY_LIMIT_BYTES, hasBody, mediaType, readRawBody } from './body-reader.js';
import type { HttpRequest } from './exchange.js';

export { BODY_LIMIT_BYTES } from './body-reader.js';

/**
 * Reads a JSON request body. An absent or empty body is `{}` (the spec's logouts send an empty
 * object, and some clients send nothing); a non-empty body must be `application/json` (415, which
 * also keeps HTML forms out: CSRF), parse as JSON (400) and fit the limit (413).
 */
export async function readJsonBody(request: HttpRequest, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  const isJson = mediaType(request) === 'application/json';
  if (!hasBody(request)) {
    if (request.header('content-type') && !isJson) {
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    }
    return {};
  }
  if (!isJson) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  const raw = await readRawBody(request, limit);
  if (raw.length === 0) return {};
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new DomainError('INVALID_REQUEST', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError('INVALID_REQUEST', 'The body is not valid JSON.');
  }
}
