import { DomainError } from '../../domain/shared/domain-error.js';
import type { HttpRequest } from './exchange.js';

/** Contract 1: bodies over 16 KiB get 413. */
export const BODY_LIMIT_BYTES = 16 * 1024;

/** The request's declared length, undefined when it declares none (chunked). */
export function declaredLength(request: Pick<HttpRequest, 'header'>): number | undefined {
  const raw = request.header('content-length');
  if (raw === '') return undefined;
  const length = Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** True when the request carries a body (a length above 0, or chunks). */
export function hasBody(request: Pick<HttpRequest, 'header'>): boolean {
  return (declaredLength(request) ?? 0) > 0 || request.header('transfer-encoding') !== '';
}

/** The media type of the request's Content-Type, lower case, without parameters. */
export function mediaType(request: Pick<HttpRequest, 'header'>): string {
  return request.header('content-type').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * Reads the whole body, at most `limit` bytes: a larger declared length is refused before a byte
 * is read, a larger stream as soon as it passes the limit (the rest is not read; the answer closes
 * the connection).
 */
export async function readRawBody(request: HttpRequest, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limit) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new DomainError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}
