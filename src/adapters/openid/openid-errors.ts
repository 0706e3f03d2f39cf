import {
  AuthorizationResponseError,
  ClientError,
  ResponseBodyError,
  WWWAuthenticateChallengeError,
} from 'openid-client';
import { DomainError } from '../../domain/shared/domain-error.js';

export type SsoFailureCode = 'SSO_UNREACHABLE' | 'SSO_REFUSED' | 'SSO_INVALID';

const MESSAGES: Record<SsoFailureCode, string> = {
  SSO_UNREACHABLE: 'The OpenID provider could not be reached',
  SSO_REFUSED: 'The OpenID provider refused the request',
  SSO_INVALID: 'The OpenID provider response failed validation',
};

/** Error codes of openid-client's ClientError (they come from oauth4webapi). */
const VALIDATION_CODES = new Set([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_PARSE_ERROR',
  'OAUTH_UNSUPPORTED_OPERATION',
  'OAUTH_JWT_USERINFO_EXPECTED',
]);
const TRANSPORT_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'OAUTH_RESPONSE_IS_NOT_JSON',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
  'OAUTH_MISSING_SERVER_METADATA',
  'OAUTH_INVALID_SERVER_METADATA',
]);
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPROTO',
]);

/** A small, safe word from the provider (an OAuth error code or a claim name) for the message. */
const SAFE_WORD = /^[A-Za-z0-9_.-]{1,64}$/;

function statusClass(status: number): SsoFailureCode {
  return status >= 400 && status < 500 ? 'SSO_REFUSED' : 'SSO_UNREACHABLE';
}

function isNetworkError(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || code.startsWith('UND_ERR'))) return true;
  if (error instanceof TypeError && error.message === 'fetch failed') return true;
  return isNetworkError((error as { cause?: unknown }).cause, depth + 1);
}

function isAbort(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'TimeoutError' ||
      (error as { name?: unknown }).name === 'AbortError')
  );
}

/** A time-out or network failure anywhere down the `cause` chain. */
/** A time-out, an abort or a network failure, anywhere in the error's cause chain. */
export function failedInTransit(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  return (
    isAbort(error) ||
    isNetworkError(error) ||
    failedInTransit((error as { cause?: unknown }).cause, depth + 1)
  );
}

/** Which SSO code an error from openid-client, fetch or our own checks stands for. */
export function classify(error: unknown): { code: SsoFailureCode; detail?: string } {
  if (error instanceof DomainError && isSsoCode(error.code)) return { code: error.code };
  if (error instanceof ResponseBodyError) {
    return { code: statusClass(error.status), detail: SAFE_WORD.test(error.error) ? error.error : undefined };
  }
  if (error instanceof WWWAuthenticateChallengeError) {
    const scheme = error.cause[0]?.parameters.error;
    return { code: statusClass(error.status), detail: scheme && SAFE_WORD.test(scheme) ? scheme : undefined };
  }
  if (error instanceof AuthorizationResponseError) {
    return { code: 'SSO_REFUSED', detail: SAFE_WORD.test(error.error) ? error.error : undefined };
  }
  if (error instanceof ClientError) {
    // A body whose reading timed out or was cut by the network comes wrapped as a parse error:
    // the provider was not reached in time, not refused or invalid.
    if (failedInTransit(error.cause)) return { code: 'SSO_UNREACHABLE' };
    const code = error.code;
    if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
      const status = error.cause instanceof Response ? error.cause.status : 500;
      return { code: statusClass(status), detail: `HTTP ${status}` };
    }
    if (code !== undefined && TRANSPORT_CODES.has(code)) return { code: 'SSO_UNREACHABLE' };
    if (code !== undefined && VALIDATION_CODES.has(code))
      return { code: 'SSO_INVALID', detail: claimOf(error) };
    // 'something went wrong' wraps an unexpected cause.
    if (error.cause !== undefined) return classify(error.cause);
    return { code: 'SSO_UNREACHABLE' };
  }
  if (isAbort(error) || isNetworkError(error)) return { code: 'SSO_UNREACHABLE' };
  if (error instanceof TypeError) {
    // oauth4webapi's coded TypeErrors: malformed base64url / JWT input.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_INVALID_ARG')) return { code: 'SSO_INVALID' };
  }
  return { code: 'SSO_UNREACHABLE' };
}

function claimOf(error: ClientError): string | undefined {
  const cause = error.cause as
    | { cause?: { claim?: unknown; attribute?: unknown }; claim?: unknown }
    | undefined;
  const claim = cause?.cause?.claim ?? cause?.claim ?? cause?.cause?.attribute;
  return typeof claim === 'string' && SAFE_WORD.test(claim) ? `claim ${claim}` : undefined;
}

function isSsoCode(code: string): code is SsoFailureCode {
  return code === 'SSO_UNREACHABLE' || code === 'SSO_REFUSED' || code === 'SSO_INVALID';
}

export function ssoError(code: SsoFailureCode, detail?: string, cause?: unknown): DomainError {
  const message = detail ? `${MESSAGES[code]} (${detail})` : MESSAGES[code];
  return new DomainError(code, message, cause === undefined ? {} : { cause });
}

/** Translates any failure at the adapter boundary; the original error is kept as `cause`. */
export function translate(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const { code, detail } = classify(error);
  return ssoError(code, detail, error);
}
