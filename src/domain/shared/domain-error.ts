/**
 * Every failure the domain can report has one stable, machine-readable code from this union.
 * Only the HTTP adapter maps a code to a status (see src/adapters/http/problem.ts).
 */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'AUTHENTICATION_FAILED'
  | 'NOT_AUTHENTICATED'
  | 'PASSWORD_EXPIRED'
  | 'PASSWORD_POLICY'
  | 'CURRENT_PASSWORD_MISMATCH'
  | 'ORIGIN_REJECTED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'SSO_NOT_CONFIGURED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_ATTEMPTS'
  | 'SERVICE_UNAVAILABLE'
  | 'SSO_INVALID'
  | 'SSO_INVALID_USERNAME'
  | 'SSO_MULTI_GROUPS'
  | 'SSO_INVALID_GROUPID_AND_USERNAME'
  | 'SSO_REFUSED'
  | 'SSO_UNREACHABLE'
  | 'CONFLICT'
  | 'INTERNAL_ERROR';

export interface FieldError {
  path: string;
  message: string;
}

export interface DomainErrorOptions {
  cause?: unknown;
  /** Extra per-field details, e.g. which password rule failed. */
  errors?: FieldError[];
  /** Seconds the client should wait (429 and 503). */
  retryAfterS?: number;
}

/** A failure with a safe message: `message` may be shown to a client, `cause` never is. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterS: number | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.errors = options.errors;
    this.retryAfterS = options.retryAfterS;
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
