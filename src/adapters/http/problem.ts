import type { ErrorCode, FieldError } from '../../domain/shared/domain-error.js';

/** The one place a code becomes an HTTP status (contract section 2). */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  AUTHENTICATION_FAILED: 401,
  NOT_AUTHENTICATED: 401,
  PASSWORD_EXPIRED: 403,
  PASSWORD_POLICY: 400,
  CURRENT_PASSWORD_MISMATCH: 403,
  ORIGIN_REJECTED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SSO_NOT_CONFIGURED: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  SSO_INVALID: 401,
  SSO_INVALID_USERNAME: 401,
  SSO_MULTI_GROUPS: 401,
  SSO_INVALID_GROUPID_AND_USERNAME: 401,
  SSO_REFUSED: 401,
  SSO_UNREACHABLE: 502,
  MFA_REQUIRED: 403,
  MFA_INVALID: 401,
  MFA_NOT_CONFIGURED: 409,
  MFA_NOT_APPLICABLE: 403,
  REAUTHENTICATION_REQUIRED: 403,
};

export const TITLE_BY_CODE: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: 'Invalid request',
  AUTHENTICATION_FAILED: 'Authentication failed',
  NOT_AUTHENTICATED: 'Not authenticated',
  PASSWORD_EXPIRED: 'Password expired',
  PASSWORD_POLICY: 'Password refused by policy',
  CURRENT_PASSWORD_MISMATCH: 'Current password mismatch',
  ORIGIN_REJECTED: 'Origin rejected',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  SSO_NOT_CONFIGURED: 'Single sign-on not configured',
  CONFLICT: 'Conflict',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  TOO_MANY_ATTEMPTS: 'Too many attempts',
  INTERNAL_ERROR: 'Internal error',
  SERVICE_UNAVAILABLE: 'Service unavailable',
  SSO_INVALID: 'Single sign-on token invalid',
  SSO_INVALID_USERNAME: 'Single sign-on username invalid',
  SSO_MULTI_GROUPS: 'Single sign-on returned several groups',
  SSO_INVALID_GROUPID_AND_USERNAME: 'Single sign-on user unknown or not allowed',
  SSO_REFUSED: 'OpenID provider refused',
  SSO_UNREACHABLE: 'OpenID provider unreachable',
  MFA_REQUIRED: 'Second factor required',
  MFA_INVALID: 'Second factor invalid',
  MFA_NOT_CONFIGURED: 'Second factor not configured',
  MFA_NOT_APPLICABLE: 'Second factor not applicable',
  REAUTHENTICATION_REQUIRED: 'Reauthentication required',
};

/** RFC 9457 problem details, with the stable `code` member. */
export interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  request_id: string;
  errors?: FieldError[];
}

export function problemBody(
  code: ErrorCode,
  detail: string,
  requestId: string,
  errors?: FieldError[],
): ProblemBody {
  return {
    type: 'about:blank',
    title: TITLE_BY_CODE[code],
    status: STATUS_BY_CODE[code],
    code,
    detail,
    request_id: requestId,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
