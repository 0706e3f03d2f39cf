/**
 * What the service and gatehouse-client must agree on over the wire (contract 4a): where the
 * forward-auth check is asked, the identity headers of a granting answer, and the refusals a guard
 * answers with. The service's forward-auth route writes them, the client reads them and its
 * middlewares answer with them; one module, so the two cannot drift. Dependency-free, so the client
 * package ships it as it is.
 */

/** Where nginx, Caddy, Traefik and gatehouse-client ask whether a request has a live session. */
export const CHECK_PATH = '/api/v1/session/check/';

/**
 * The identity headers of a granting answer, as the service writes them. Header names are
 * case-insensitive: a reader may use them in lower case (`Headers.get` does not care).
 */
export const IDENTITY_HEADERS = {
  userId: 'Gatehouse-User-Id',
  username: 'Gatehouse-Username',
  userLevel: 'Gatehouse-User-Level',
  /** Only when the user has one. */
  tenantId: 'Gatehouse-Tenant-Id',
  /** Only when the user has one. */
  groupId: 'Gatehouse-Group-Id',
  /**
   * How the session was made (contract 3b): its RFC 8176 method references, comma-separated, each
   * percent-encoded where it is not a plain token (an SSO provider's own values).
   */
  authMethods: 'Gatehouse-Auth-Methods',
  /** When the user last proved who they are: Unix seconds. */
  authTime: 'Gatehouse-Auth-Time',
} as const;

/**
 * The check's step-up parameters (contract 3b), set per location in a gateway's configuration and
 * by gatehouse-client's `requireMfa` / `maxAuthAgeS`: `mfa=1` asks for a session made with two
 * factors (else 403 MFA_REQUIRED), `max_age=S` for an authentication at most S seconds ago (else
 * 403 REAUTHENTICATION_REQUIRED).
 */
export const STEP_UP_QUERY = { requireMfa: 'mfa', maxAuthAgeS: 'max_age' } as const;

/** The detail of a refusal by the Origin rule (contract 3), by what gave the request away. */
export const ORIGIN_REFUSAL_DETAILS = {
  foreignOrigin: 'Requests from this origin are not accepted.',
  crossSiteFetch: 'Cross-site requests are not accepted.',
} as const;

/** Spec 5.4's refusal of a session whose password expired, wherever it is refused. */
export const PASSWORD_EXPIRED_DETAIL = 'The password has expired. Change it before doing anything else.';

/**
 * The refusals a guard answers with (RFC 9457 problem+json with a stable code), by kind: the
 * status, code and title are the service's own for that code; the detail is the guard's.
 */
export const GUARD_REFUSALS = {
  'cross-site': {
    status: 403,
    code: 'ORIGIN_REJECTED',
    title: 'Origin rejected',
    detail: ORIGIN_REFUSAL_DETAILS.foreignOrigin,
  },
  none: { status: 401, code: 'NOT_AUTHENTICATED', title: 'Not authenticated', detail: 'Log in first.' },
  expired: {
    status: 403,
    code: 'PASSWORD_EXPIRED',
    title: 'Password expired',
    detail: PASSWORD_EXPIRED_DETAIL,
  },
  'mfa-required': {
    status: 403,
    code: 'MFA_REQUIRED',
    title: 'Second factor required',
    detail: 'A second factor is required.',
  },
  'reauthentication-required': {
    status: 403,
    code: 'REAUTHENTICATION_REQUIRED',
    title: 'Reauthentication required',
    detail: 'Authenticate again to continue.',
  },
  unavailable: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    title: 'Service unavailable',
    detail: 'The session could not be checked. Try again shortly.',
  },
} as const;

export type GuardRefusalKind = keyof typeof GUARD_REFUSALS;
