import { z } from 'zod';
import type { AuthenticatedSession } from '../../../application/session-authenticator.js';
import { CHECK_PATH, IDENTITY_HEADERS, STEP_UP_QUERY } from '../../../client/wire.js';
import { authTimeSeconds, type StepUp } from '../../../domain/session/session-auth.js';
import type { HttpRequest, Reply } from '../exchange.js';
import type { OriginFacts } from '../origin-check.js';
import { defineRoute, type Route } from '../route.js';
import { checkQuerySchema, parseQuery } from '../schemas.js';

/**
 * Where Envoy's `ext_authz` asks: its `path_prefix` (`/api/v1/session/check/envoy`) with the
 * original path after it, in the original method. Its own path, so that a request for the
 * application's `/` is not taken for an ordinary check.
 */
export const ENVOY_CHECK_PATH = '/api/v1/session/check/envoy/';

/** A header value must be visible ASCII; anything else in a username is percent-encoded (contract 4a). */
function headerSafe(value: string): string {
  return /^[\x21-\x7e]*$/.test(value) && !value.includes('%') ? value : encodeURIComponent(value);
}

/** One method reference in the comma list: a plain token as it is, anything else percent-encoded. */
function methodToken(value: string): string {
  return /^[A-Za-z0-9._~-]+$/.test(value) ? value : encodeURIComponent(value);
}

/** The identity headers of contract 4a, for a gateway to pass on to the application. */
export function identityHeaders(reply: Reply, { user, auth }: AuthenticatedSession): void {
  reply.header(IDENTITY_HEADERS.userId, headerSafe(user.userId));
  reply.header(IDENTITY_HEADERS.username, headerSafe(user.username));
  reply.header(IDENTITY_HEADERS.userLevel, String(user.userLevel));
  if (user.tenantId) reply.header(IDENTITY_HEADERS.tenantId, headerSafe(user.tenantId));
  if (user.groupId) reply.header(IDENTITY_HEADERS.groupId, headerSafe(user.groupId));
  // Contract 3b: how and when the session was made, for an application's own step-up decisions.
  reply.header(IDENTITY_HEADERS.authMethods, auth.amr.map(methodToken).join(','));
  reply.header(IDENTITY_HEADERS.authTime, String(authTimeSeconds(auth)));
}

/** The step-up a check asks for in its query (`mfa=1`, `max_age=S`); 400 for a malformed one. */
function checkStepUp(request: HttpRequest): StepUp | undefined {
  const query = parseQuery(checkQuerySchema, request.query);
  if (query.mfa === undefined && query.max_age === undefined) return undefined;
  return {
    ...(query.mfa ? { requireMfa: true } : {}),
    ...(query.max_age !== undefined ? { maxAuthAgeS: query.max_age } : {}),
  };
}

/** The last value of a header a gateway appends to: the one the gateway added itself. */
function lastValue(request: HttpRequest, name: string): string {
  return request.header(name).split(',').at(-1)?.trim() ?? '';
}

/**
 * The request the gateway asks about, as the Origin rule reads it: `method`, its `Origin` and
 * `Sec-Fetch-Site` (the gateway passes the original request's headers on), and its own origin from
 * the `X-Forwarded-Proto` and `X-Forwarded-Host` the gateway set (else the check's own). A browser
 * cannot set those headers on a cross-site request, and every documented gateway overwrites them.
 */
function askedAbout(check: HttpRequest, method: string): OriginFacts {
  const protocol = lastValue(check, 'x-forwarded-proto') || check.ownOrigin.split(':')[0];
  const host = lastValue(check, 'x-forwarded-host') || check.header('host');
  return { method, header: (name) => check.header(name), ownOrigin: `${protocol}://${host}` };
}

/**
 * Forward auth (contract 4a): a gateway asks whether the request it is about to pass on carries a
 * live session, and the answer is the service's own: an unsafe method from a foreign origin or a
 * cross-site fetch is 403 ORIGIN_REJECTED (the Origin rule, on the original request), then the
 * session guard answers 401 / 403 PASSWORD_EXPIRED / 503 as everywhere. A live session is 204 with
 * who it is in headers (200 with an empty body for Envoy). No cookie is ever set or cleared.
 *
 * Every method reaches the session check: a gateway that sends the check in the original method
 * (nginx does not, Traefik with `preserveRequestMethod` and Envoy do) must never read a 2xx for an
 * OPTIONS or any other request without a session.
 */
export function forwardAuthRoutes(): Route[] {
  // What a gateway reads from a live session's answer (the document's words for identityHeaders).
  const identityHeaderDocs = {
    [IDENTITY_HEADERS.userId]: { description: 'The user id.', required: true },
    [IDENTITY_HEADERS.username]: {
      description: 'The username, percent-encoded (RFC 3986) where it is not printable ASCII.',
      required: true,
    },
    [IDENTITY_HEADERS.userLevel]: { description: 'The user level (0, 4, 8, 12 or 16).', required: true },
    [IDENTITY_HEADERS.tenantId]: { description: 'The tenant id, when the user has one.', required: false },
    [IDENTITY_HEADERS.groupId]: { description: 'The group id, when the user has one.', required: false },
    [IDENTITY_HEADERS.authMethods]: {
      description:
        'How the session was made: RFC 8176 method references, comma-separated (`pwd`, `otp`, `hwk`, ' +
        '`recovery`, `mfa`, `sso` and the provider’s own), each percent-encoded unless a plain token.',
      required: true,
    },
    [IDENTITY_HEADERS.authTime]: {
      description: 'When the user last proved who they are, in Unix seconds.',
      required: true,
    },
  };
  return [
    defineRoute({
      method: 'GET',
      path: CHECK_PATH,
      session: 'live',
      catchAll: 'path',
      // nginx sets X-Forwarded-Method in its configuration; Caddy and Traefik set it themselves.
      originOf: (request) => askedAbout(request, request.header('x-forwarded-method') || request.method),
      stepUpOf: checkStepUp,
      openapi: {
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
          'application and must strip any the client sent (docs/gateways.md). Step-up, set per ' +
          'location in the gateway: `mfa=1` refuses a session made with one factor (403 ' +
          '`MFA_REQUIRED`), `max_age=S` one whose user authenticated more than S seconds ago (403 ' +
          '`REAUTHENTICATION_REQUIRED`). A session waiting for its second factor is always 403 ' +
          '`MFA_REQUIRED`, with no identity headers.',
        queryParameters: [
          {
            name: STEP_UP_QUERY.requireMfa,
            description: '`1`: the session must have been made with two factors.',
            schema: z.literal('1'),
          },
          {
            name: STEP_UP_QUERY.maxAuthAgeS,
            description: 'The most seconds since the user last authenticated.',
            schema: z.string().regex(/^\d{1,10}$/),
          },
        ],
        responses: [
          {
            status: 204,
            description: 'A live session: who it belongs to, in headers.',
            headers: identityHeaderDocs,
          },
        ],
        errors: ['INVALID_REQUEST', 'REAUTHENTICATION_REQUIRED', 'SERVICE_UNAVAILABLE', 'ORIGIN_REJECTED'],
      },
      handle: ({ reply, session }) => {
        reply.status = 204;
        identityHeaders(reply, session);
      },
    }),
    defineRoute({
      method: 'GET',
      path: ENVOY_CHECK_PATH,
      session: 'live',
      catchAll: 'subtree',
      // Envoy sends the check in the original method: that is the method asked about, whatever
      // header a client added.
      originOf: (request) => askedAbout(request, request.method),
      openapi: {
        operationId: 'checkSessionForEnvoy',
        tag: 'session',
        summary: 'Forward auth for Envoy `ext_authz`',
        description:
          'The same check, where Envoy asks: `path_prefix` `/api/v1/session/check/envoy`, the original ' +
          'path after it, in the original method (every method and every path under this one). 200 ' +
          'with an empty body, the only answer `ext_authz` admits.',
        responses: [
          {
            status: 200,
            description: 'A live session: who it belongs to, in headers.',
            headers: identityHeaderDocs,
          },
        ],
        errors: ['SERVICE_UNAVAILABLE', 'ORIGIN_REJECTED'],
      },
      handle: ({ reply, session }) => {
        // Envoy's ext_authz admits 200 only; the body stays empty (contract 4a).
        reply.status = 200;
        identityHeaders(reply, session);
        reply.text('text/plain; charset=utf-8', '');
      },
    }),
  ];
}
