import { DomainError } from '../../domain/shared/domain-error.js';

/** Seconds a client is told to wait when the store is down. */
export const STORE_RETRY_AFTER_S = 5;

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled (statement_timeout)
]);

function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error.message;
  return (
    message.includes('Connection terminated') ||
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Client has encountered a connection error') ||
    message.includes('Query read timeout') ||
    message.includes('Cannot use a pool after calling end') ||
    message.includes('connect ECONNREFUSED') ||
    // Embedded PGlite once closed (shutdown under way, or the engine gave up).
    message === 'PGlite is closed'
  );
}

/**
 * Translates a driver failure where it enters: an unreachable store becomes SERVICE_UNAVAILABLE
 * (503 with Retry-After); a character the database cannot hold (NUL) becomes INVALID_REQUEST (400);
 * anything else is rethrown unchanged for the repository to interpret
 * (e.g. `23505` unique violations) or to surface as an internal error.
 */
export function translateStoreError(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '22021' || code === '22P05') {
    // A value PostgreSQL text cannot hold (a NUL character): it matches no stored row and can
    // never be stored, so it is the request's fault, not the service's.
    throw new DomainError('INVALID_REQUEST', 'The request contains a character that is not allowed (NUL).', {
      cause: error,
    });
  }
  if (isUnavailable(error)) {
    throw new DomainError('SERVICE_UNAVAILABLE', 'The session store is unavailable. Try again shortly.', {
      cause: error,
      retryAfterS: STORE_RETRY_AFTER_S,
    });
  }
  throw error;
}

export function sqlErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
