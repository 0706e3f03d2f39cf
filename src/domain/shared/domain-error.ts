/**
 * Every failure the domain can report has one stable, machine-readable code from this union.
 * Only the HTTP adapter maps a code to a status (see src/adapters/http/problem.ts).
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'AUTHENTICATION_FAILED',
  'NOT_AUTHENTICATED',
  'PASSWORD_EXPIRED',
  'PASSWORD_POLICY',
  'CURRENT_PASSWORD_MISMATCH',
  'ORIGIN_REJECTED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'SSO_NOT_CONFIGURED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_ATTEMPTS',
  'SERVICE_UNAVAILABLE',
  'SSO_INVALID',
  'SSO_INVALID_USERNAME',
  'SSO_MULTI_GROUPS',
  'SSO_INVALID_GROUPID_AND_USERNAME',
  'SSO_REFUSED',
  'SSO_UNREACHABLE',
  'CONFLICT',
  'INTERNAL_ERROR',
  // Second factors (contract 3b).
  'MFA_REQUIRED',
  'MFA_INVALID',
  'MFA_NOT_CONFIGURED',
  'MFA_NOT_APPLICABLE',
  'REAUTHENTICATION_REQUIRED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Marks a DomainError whichever copy of the class made it: a store or interpreter package is
 * built against the testing kit, which carries its own copy, and `instanceof` cannot see across
 * copies; the registered symbol can.
 */
const BRAND = Symbol.for('gatehouse.DomainError');

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
  readonly [BRAND] = true;
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

/**
 * True for a DomainError of any copy of the class: this one's, or another copy's (the testing
 * kit's, an older package's) recognised by its brand or its name, with a known `code` and
 * well-formed details. Anything else (a driver's error, a plain `{ code }` object) is not one: its
 * message was never meant for a client, so it stays a 500 that says nothing.
 */
export function isDomainError(value: unknown): value is DomainError {
  if (value instanceof DomainError) return true;
  if (!(value instanceof Error)) return false;
  const candidate = value as Error & {
    [BRAND]?: unknown;
    code?: unknown;
    errors?: unknown;
    retryAfterS?: unknown;
  };
  if (candidate[BRAND] !== true && candidate.name !== 'DomainError') return false;
  if (typeof candidate.code !== 'string' || !KNOWN_CODES.has(candidate.code)) return false;
  const { retryAfterS, errors } = candidate;
  if (
    retryAfterS !== undefined &&
    !(typeof retryAfterS === 'number' && retryAfterS >= 0 && retryAfterS < Infinity)
  ) {
    return false;
  }
  return errors === undefined || (Array.isArray(errors) && errors.every(isFieldError));
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const { path, message } = value as { path?: unknown; message?: unknown };
  return typeof path === 'string' && typeof message === 'string';
}
