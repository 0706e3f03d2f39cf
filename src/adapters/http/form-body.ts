import type { Context } from 'koa';
import { DomainError } from '../../domain/shared/domain-error.js';
import { BODY_LIMIT_BYTES } from './json-body.js';

/**
 * Reads an `application/x-www-form-urlencoded` body. Used only by the back-channel logout
 * receiver, whose caller (the OpenID provider) is defined by that specification to post a form;
 * every other route accepts JSON only.
 */
export async function readFormBody(ctx: Context, limit = BODY_LIMIT_BYTES): Promise<URLSearchParams> {
  const type = ctx.get('Content-Type').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the logout token as application/x-www-form-urlencoded.',
    );
  }
  if ((ctx.request.length ?? 0) > limit)
    throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      ctx.set('Connection', 'close');
      throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks, size).toString('utf8'));
}
