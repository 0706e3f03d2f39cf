import type { Context } from 'koa';
import { DomainError } from '../../domain/shared/domain-error.js';

/** Contract 1: bodies over 16 KiB get 413. */
export const BODY_LIMIT_BYTES = 16 * 1024;

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = ctx.request.length;
  if (declared !== undefined && declared > limit) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      // Stop reading; the connection is closed after the answer so the rest is not parsed.
      ctx.set('Connection', 'close');
      throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads a JSON request body. An absent or empty body is `{}` (the spec's logouts send an empty
 * object, and some clients send nothing); a non-empty body must be `application/json` (415, which
 * also keeps HTML forms out: CSRF), parse as JSON (400) and fit the limit (413).
 */
export async function readJsonBody(ctx: Context, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) {
    if (ctx.get('Content-Type') && !isJsonContentType(ctx.get('Content-Type'))) {
      throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    }
    return {};
  }
  if (!isJsonContentType(ctx.get('Content-Type'))) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  const raw = await readRaw(ctx, limit);
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
