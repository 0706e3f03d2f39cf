import { DomainError } from '../../domain/shared/domain-error.js';
import { BODY_LIMIT_BYTES, mediaType, readRawBody } from './body-reader.js';
import type { HttpRequest } from './exchange.js';

/**
 * Reads an `application/x-www-form-urlencoded` body. Used only by the back-channel logout
 * receiver, whose caller (the OpenID provider) is defined by that specification to post a form;
 * every other route accepts JSON only.
 */
export async function readFormBody(request: HttpRequest, limit = BODY_LIMIT_BYTES): Promise<URLSearchParams> {
  if (mediaType(request) !== 'application/x-www-form-urlencoded') {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the logout token as application/x-www-form-urlencoded.',
    );
  }
  return new URLSearchParams((await readRawBody(request, limit)).toString('utf8'));
}
