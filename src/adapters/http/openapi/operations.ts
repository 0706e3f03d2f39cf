import { z } from 'zod';
import type { ErrorCode } from '../../../domain/shared/domain-error.js';
import { SSO_INTERPRETATION_CODES } from '../../../domain/sso/sso-token-interpreter.port.js';
import {
  backchannelLogoutRequestSchema,
  emptyRequestSchema,
  emptyResponseSchema,
  healthResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  passwordChangeRequestSchema,
  readinessResponseSchema,
  sessionHandleSchema,
  sessionListSchema,
  sessionsRevokedSchema,
  sessionViewSchema,
  ssoLoginRequestSchema,
} from '../schemas.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * How an operation uses the session cookie:
 * - `required`: the session guard runs (401 NOT_AUTHENTICATED, 403 PASSWORD_EXPIRED);
 * - `required-allow-expired`: the guard runs but lets an expired-credentials session through;
 * - `optional`: the cookie is read when sent (logouts), never required;
 * - `none`: the cookie is not read.
 */
export type SessionUse = 'required' | 'required-allow-expired' | 'optional' | 'none';

export interface SuccessResponse {
  status: number;
  description: string;
  /** The body's schema; JSON unless `mediaType` says otherwise. None: no body (204). */
  schema?: z.ZodType;
  /** Headers of this answer besides the usual ones, each a string. */
  headers?: Record<string, { description: string; required: boolean }>;
  mediaType?: string;
  /** `session`: sets a new session cookie; `cleared`: clears it. */
  setCookie?: 'session' | 'cleared';
  retryAfter?: boolean;
}

export interface OperationSpec {
  method: HttpMethod;
  /** The path as the router serves it, parameters as `{name}`: `/api/v1/sessions/{handle}/`. */
  path: string;
  operationId: string;
  tag: 'session' | 'sso' | 'operations';
  summary: string;
  description?: string;
  session: SessionUse;
  request?: {
    schema: z.ZodType;
    mediaType?: 'application/json' | 'application/x-www-form-urlencoded';
    /** True when the body may be left out (the logouts: no body reads as `{}`). */
    optional?: boolean;
  };
  pathParameters?: Array<{ name: string; description: string; schema: z.ZodType }>;
  /** Optional query parameters, each a string schema. */
  queryParameters?: Array<{ name: string; description: string; schema: z.ZodType }>;
  /** Answers that are not problem documents (success, and e.g. readiness's own 503). */
  responses: SuccessResponse[];
  /**
   * Error codes this operation itself raises. Those every operation of its kind may answer are
   * added by `errorCodesOf`: body errors when it takes a body, ORIGIN_REJECTED when it changes
   * state, the session guard's when it requires a session, INTERNAL_ERROR always.
   */
  errors: ErrorCode[];
  /** Documented only when this says the feature is on (e.g. /metrics on the main port). */
  when?: (features: DocumentFeatures) => boolean;
}

export interface DocumentFeatures {
  /** True when GET /metrics is served on the main port (METRICS_PORT unset). */
  metricsOnMainPort: boolean;
}

const SAFE_METHODS: ReadonlySet<HttpMethod> = new Set(['get']);

/** Every error code an operation may answer, in a stable order. */
export function errorCodesOf(operation: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(operation.errors);
  if (operation.request) {
    codes.add('INVALID_REQUEST');
    codes.add('PAYLOAD_TOO_LARGE');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (!SAFE_METHODS.has(operation.method)) codes.add('ORIGIN_REJECTED');
  if (operation.session === 'required' || operation.session === 'required-allow-expired') {
    codes.add('NOT_AUTHENTICATED');
  }
  if (operation.session === 'required') codes.add('PASSWORD_EXPIRED');
  codes.add('INTERNAL_ERROR');
  return [...codes];
}

const SSO_EXCHANGE_ERRORS: ErrorCode[] = [...SSO_INTERPRETATION_CODES];

const IDENTITY_HEADERS = {
  'Gatehouse-User-Id': { description: 'The user id.', required: true },
  'Gatehouse-Username': {
    description: 'The username, percent-encoded (RFC 3986) where it is not printable ASCII.',
    required: true,
  },
  'Gatehouse-User-Level': { description: 'The user level (0, 4, 8, 12 or 16).', required: true },
  'Gatehouse-Tenant-Id': { description: 'The tenant id, when the user has one.', required: false },
  'Gatehouse-Group-Id': { description: 'The group id, when the user has one.', required: false },
};

/**
 * The route registry the OpenAPI document is generated from: one entry per operation, naming
 * the same zod schemas the routes validate requests with and shape answers with. Adding an
 * endpoint to the document is adding its entry here (test/http/openapi.test.ts fails when a
 * served route has no entry, or an entry no route).
 */
export const OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/login/',
    operationId: 'login',
    tag: 'session',
    summary: 'Log in with username and password',
    description:
      'Creates a session and sets its cookie. A session cookie sent with the request is revoked ' +
      '(fixation defence). Unknown user, wrong password and disabled account give the same answer.',
    session: 'optional',
    request: { schema: loginRequestSchema },
    responses: [
      { status: 200, description: 'Logged in.', schema: loginResponseSchema, setCookie: 'session' },
    ],
    errors: ['AUTHENTICATION_FAILED', 'TOO_MANY_ATTEMPTS', 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/v1/logout/',
    operationId: 'logout',
    tag: 'session',
    summary: 'End the current session',
    description: 'Deletes the session server-side (any kind) and clears the cookie. Idempotent.',
    session: 'optional',
    request: { schema: emptyRequestSchema, optional: true },
    responses: [
      { status: 200, description: 'Logged out.', schema: emptyResponseSchema, setCookie: 'cleared' },
    ],
    errors: ['SERVICE_UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/v1/session/',
    operationId: 'getSession',
    tag: 'session',
    summary: 'The current session',
    description: 'The ids and profile of the logged-in user (no `phoneNumber`: login answers only).',
    session: 'required',
    responses: [{ status: 200, description: 'The current session.', schema: sessionViewSchema }],
    errors: ['SERVICE_UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/v1/session/check/',
    operationId: 'checkSession',
    tag: 'session',
    summary: 'Forward auth: is there a live session?',
    description:
      'For gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik `forwardAuth`): reads the ' +
      'Cookie header, follows the same time-outs and last-seen rules as `GET /api/v1/session/`, ' +
      "never sets or clears a cookie. The original request's method (`X-Forwarded-Method`), " +
      '`Origin` and `Sec-Fetch-Site` are judged as the service judges its own routes: an unsafe ' +
      'method from a foreign origin is 403 `ORIGIN_REJECTED`. Every other method is answered the ' +
      'same way, never 2xx without a session. A gateway passes the identity headers on to the ' +
      'application and must strip any the client sent (docs/gateways.md).',
    session: 'required',
    responses: [
      {
        status: 204,
        description: 'A live session: who it belongs to, in headers.',
        headers: IDENTITY_HEADERS,
      },
    ],
    errors: ['SERVICE_UNAVAILABLE', 'ORIGIN_REJECTED'],
  },
  {
    method: 'get',
    path: '/api/v1/session/check/envoy/',
    operationId: 'checkSessionForEnvoy',
    tag: 'session',
    summary: 'Forward auth for Envoy `ext_authz`',
    description:
      'The same check, where Envoy asks: `path_prefix` `/api/v1/session/check/envoy`, the original ' +
      'path after it, in the original method (every method and every path under this one). 200 ' +
      'with an empty body, the only answer `ext_authz` admits.',
    session: 'required',
    responses: [
      {
        status: 200,
        description: 'A live session: who it belongs to, in headers.',
        headers: IDENTITY_HEADERS,
      },
    ],
    errors: ['SERVICE_UNAVAILABLE', 'ORIGIN_REJECTED'],
  },
  {
    method: 'post',
    path: '/api/v1/password/',
    operationId: 'changePassword',
    tag: 'session',
    summary: 'Change the password',
    description:
      'Allowed on a session whose credentials expired. On success the expiry is cleared, the ' +
      "user's other sessions end and this one gets a new id (a new cookie).",
    session: 'required-allow-expired',
    request: { schema: passwordChangeRequestSchema },
    responses: [
      { status: 200, description: 'Password changed.', schema: loginResponseSchema, setCookie: 'session' },
    ],
    errors: ['PASSWORD_POLICY', 'CURRENT_PASSWORD_MISMATCH', 'TOO_MANY_ATTEMPTS', 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/v1/sessions/',
    operationId: 'listSessions',
    tag: 'session',
    summary: 'List your sessions',
    description:
      'Your live sessions, newest first, the one this request came with marked `current`, one page ' +
      'at a time: `limit` sessions (default 50), and `next_cursor` while more remain, to pass as ' +
      '`cursor`. Sessions are named by opaque handles, never by their cookie value. A user has at ' +
      'most `SESSIONS_PER_USER_MAX` live sessions (default 100): a login beyond it ends the least ' +
      'recently used one.',
    session: 'required',
    queryParameters: [
      {
        name: 'limit',
        description: 'Sessions per page, 1 to 100 (default 50).',
        schema: z.string().regex(/^\d{1,3}$/),
      },
      { name: 'cursor', description: 'The `next_cursor` of the previous page.', schema: z.string().max(128) },
    ],
    responses: [{ status: 200, description: 'Your sessions.', schema: sessionListSchema }],
    errors: ['INVALID_REQUEST', 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'delete',
    path: '/api/v1/sessions/{handle}/',
    operationId: 'endSession',
    tag: 'session',
    summary: 'End one of your sessions',
    description:
      'Ends the session with this handle at once, on every instance. A handle that is not one ' +
      "of your sessions (another user's, or none) is answered `404`. Ending the current session " +
      'also clears its cookie.',
    session: 'required',
    pathParameters: [
      { name: 'handle', description: 'The handle from GET /api/v1/sessions/.', schema: sessionHandleSchema },
    ],
    responses: [{ status: 200, description: 'Session ended.', schema: emptyResponseSchema }],
    errors: ['NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/v1/sessions/revoke-others/',
    operationId: 'revokeOtherSessions',
    tag: 'session',
    summary: 'End all your other sessions',
    description: 'Ends every session of yours except the one this request came with; answers how many.',
    session: 'required',
    request: { schema: emptyRequestSchema, optional: true },
    responses: [{ status: 200, description: 'Other sessions ended.', schema: sessionsRevokedSchema }],
    errors: ['SERVICE_UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/v1/openid/login/',
    operationId: 'ssoLogin',
    tag: 'sso',
    summary: 'Single sign-on login (second step of the OpenID Connect code flow)',
    description:
      'Exchanges the authorization code at the OpenID provider, validates the ID token and its ' +
      'nonce, maps the tokens to a local user and creates a session.',
    session: 'optional',
    request: { schema: ssoLoginRequestSchema },
    responses: [
      { status: 200, description: 'Logged in.', schema: loginResponseSchema, setCookie: 'session' },
    ],
    errors: ['SSO_NOT_CONFIGURED', ...SSO_EXCHANGE_ERRORS, 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/v1/openid/logout/',
    operationId: 'ssoLogout',
    tag: 'sso',
    summary: 'Single sign-on logout',
    description:
      'Ends the local session first, whatever happens next, then the session at the OpenID ' +
      'provider (token revocation). A password session just ends locally. The cookie is cleared ' +
      'even when the provider fails.',
    session: 'optional',
    request: { schema: emptyRequestSchema, optional: true },
    responses: [
      { status: 200, description: 'Logged out.', schema: emptyResponseSchema, setCookie: 'cleared' },
    ],
    errors: ['SSO_NOT_CONFIGURED', 'SSO_REFUSED', 'SSO_UNREACHABLE', 'SERVICE_UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/v1/openid/backchannel-logout/',
    operationId: 'ssoBackchannelLogout',
    tag: 'sso',
    summary: 'OpenID Connect Back-Channel Logout receiver',
    description:
      'Called by the OpenID provider, not by browsers: ends every local session the logout ' +
      'token names (by `sid` or `sub`). An invalid logout token is answered 400; a client ' +
      'address that sent too many invalid ones in the window is answered 429 before its token is checked.',
    session: 'none',
    request: { schema: backchannelLogoutRequestSchema, mediaType: 'application/x-www-form-urlencoded' },
    responses: [{ status: 200, description: 'Sessions ended.', schema: emptyResponseSchema }],
    errors: [
      'SSO_NOT_CONFIGURED',
      'SSO_REFUSED',
      'SSO_UNREACHABLE',
      'TOO_MANY_ATTEMPTS',
      'SERVICE_UNAVAILABLE',
    ],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'liveness',
    tag: 'operations',
    summary: 'Liveness',
    session: 'none',
    responses: [{ status: 200, description: 'The process answers.', schema: healthResponseSchema }],
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readiness',
    tag: 'operations',
    summary: 'Readiness',
    description: 'Ready when the store answers and every migration is applied.',
    session: 'none',
    responses: [
      { status: 200, description: 'Ready.', schema: readinessResponseSchema },
      {
        status: 503,
        description: 'Not ready (store unreachable or migrations pending).',
        schema: readinessResponseSchema,
        retryAfter: true,
      },
    ],
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'openapi',
    tag: 'operations',
    summary: 'This OpenAPI document',
    session: 'none',
    responses: [
      {
        status: 200,
        description: 'The OpenAPI 3.1 document.',
        schema: z.looseObject({ openapi: z.string() }),
      },
    ],
    errors: [],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'operations',
    summary: 'Prometheus metrics',
    description:
      'Text exposition format. Served here only while METRICS_PORT is unset; otherwise only on ' +
      'METRICS_HOST:METRICS_PORT. See docs/metrics.md.',
    session: 'none',
    responses: [{ status: 200, description: 'The metrics.', schema: z.string(), mediaType: 'text/plain' }],
    errors: [],
    when: (features) => features.metricsOnMainPort,
  },
];
