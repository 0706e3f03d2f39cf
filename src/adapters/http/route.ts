import type { z } from 'zod';
import type { AuthenticatedSession } from '../../application/session-authenticator.js';
import type { StepUp } from '../../domain/session/session-auth.js';
import type { ErrorCode } from '../../domain/shared/domain-error.js';
import type { HttpRequest, Reply } from './exchange.js';
import { readJsonBody } from './json-body.js';
import type { OriginFacts } from './origin-check.js';
import { parseBody } from './schemas.js';

export type RouteMethod = 'GET' | 'POST' | 'DELETE';

/**
 * What a route needs of the session cookie, the one word set of HttpCore (which runs the session
 * guard) and of the OpenAPI document (which states the security and the guard's error codes).
 * A pending session (contract 3b: waiting for its second factor, or for its user to enrol one)
 * never counts as logged in: only the two pending rules admit one, each of one stage.
 * - `live`: a full session with unexpired credentials (401 NOT_AUTHENTICATED, 403 PASSWORD_EXPIRED,
 *   403 MFA_REQUIRED for a pending one);
 * - `live-expired-allowed`: a full session, expired credentials allowed (spec 5.4: password change);
 *   403 MFA_REQUIRED for a pending one;
 * - `pending-second-factor`: only a session of stage `second_factor` (the routes that finish such
 *   a login: verify, WebAuthn options); its credentials may have expired (the full session it
 *   becomes is then held to the password change). A full session is 403 MFA_NOT_APPLICABLE
 *   (nothing to verify), an enrolment one 403 MFA_REQUIRED (it must enrol, not verify);
 * - `live-or-enrolment`: a full session with unexpired credentials, or one of stage `enrolment`
 *   (the enrolment routes: a user whose level requires a factor and who has none enrols one to
 *   finish the login; expired credentials are then the password change's business, after it);
 *   a `second_factor` session is 403 MFA_REQUIRED;
 * - `optional`: the cookie is read when sent (logins revoke it, logouts end it, whatever its
 *   stage), never required;
 * - `none`: the cookie is not read.
 */
export type SessionRule =
  | 'live'
  | 'live-expired-allowed'
  | 'pending-second-factor'
  | 'live-or-enrolment'
  | 'optional'
  | 'none';

/** The rules under which HttpCore runs the session guard before the handler. */
export type GuardedRule = Exclude<SessionRule, 'optional' | 'none'>;

const GUARDED: ReadonlySet<SessionRule> = new Set<GuardedRule>([
  'live',
  'live-expired-allowed',
  'pending-second-factor',
  'live-or-enrolment',
]);

export function isGuarded(rule: SessionRule | undefined): rule is GuardedRule {
  return rule !== undefined && GUARDED.has(rule);
}

/** The rules that refuse a full session whose credentials expired (403 PASSWORD_EXPIRED). */
export function refusesExpiredCredentials(rule: SessionRule): boolean {
  return rule === 'live' || rule === 'live-or-enrolment';
}

/** The session a handler gets: the guard's for a guarded rule, none otherwise. */
export type SessionFor<Rule extends SessionRule> = Rule extends GuardedRule ? AuthenticatedSession : null;

/** The body a route takes: the zod schema it is read with, which the document shows too. */
export interface RequestBody<Schema extends z.ZodType = z.ZodType> {
  schema: Schema;
  /** JSON unless it says otherwise (back-channel logout: the provider posts a form). */
  mediaType?: 'application/json' | 'application/x-www-form-urlencoded';
  /** True when the body may be left out (no body reads as `{}`). */
  optional?: boolean;
}

/** One answer of a route that is not a problem document (a success, and readiness's own 503). */
export interface RouteResponse {
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

export interface RouteParameter {
  name: string;
  description: string;
  schema: z.ZodType;
}

/** What the OpenAPI document says of a route besides its method, path, session rule and body. */
export interface RouteDocs {
  operationId: string;
  tag: 'session' | 'sso' | 'operations';
  summary: string;
  description?: string;
  pathParameters?: RouteParameter[];
  /** Optional query parameters, each a string schema. */
  queryParameters?: RouteParameter[];
  /** Answers that are not problem documents. */
  responses: RouteResponse[];
  /**
   * Error codes this route itself raises. Those every route of its kind may answer are added by
   * the document (`errorCodesOf`): body errors when it takes a body, ORIGIN_REJECTED when it
   * changes state, the session guard's when its rule is guarded, INTERNAL_ERROR always.
   */
  errors: ErrorCode[];
}

/**
 * One endpoint of the API, declared once for every transport and for the OpenAPI document:
 * method, path, session rule, body, answers and error codes beside the handler. A transport
 * registers `path` with its own router (`:name` parameters) and calls HttpCore.answer with the
 * match; the document is built from the same table (routes/openapi-routes.ts).
 */
export interface Route {
  method: RouteMethod;
  path: string;
  session: SessionRule;
  request?: RequestBody;
  /**
   * Forward auth (contract 4a), where a gateway asks with the original request's method (and, for
   * Envoy, its path after the route's): `'path'` also answers every other method at `path`,
   * `'subtree'` every method at `path` and under it. HttpCore finds such a route when the
   * framework's router found none, so no method gets an answer without the route's session check.
   */
  catchAll?: 'path' | 'subtree';
  /**
   * The request whose Origin is checked (contract 3): this one by default; forward auth checks
   * the request the gateway asks about.
   */
  originOf?(request: HttpRequest): OriginFacts;
  /**
   * What this request asks of the session beyond the rule (contract 3b step-up: forward auth reads
   * it from its query), checked with the session; throws INVALID_REQUEST for a malformed demand.
   * Only for a guarded rule.
   */
  stepUpOf?(request: HttpRequest): StepUp | undefined;
  openapi: RouteDocs;
  handle(request: HttpRequest, reply: Reply, session: AuthenticatedSession | null): Promise<void> | void;
}

/**
 * What a transport hands HttpCore: a route of the table, or a stand-in for a failure its framework
 * met before routing (Fastify's malformed URL), whose handler throws. A stand-in declares nothing
 * else: it is neither guarded nor documented.
 */
export type MatchedRoute = Pick<Route, 'method' | 'path' | 'handle'> & Partial<Route>;

/** What a handler declared with `defineRoute` is given. */
export interface RouteExchange<Rule extends SessionRule, Schema extends z.ZodType> {
  request: HttpRequest;
  reply: Reply;
  session: SessionFor<Rule>;
  /**
   * The JSON body read and checked with the declared schema (415, 413, 400 INVALID_REQUEST), when
   * the handler asks: some answer before reading it (SSO_NOT_CONFIGURED).
   */
  body(): Promise<z.output<Schema>>;
}

export interface RouteSpec<Rule extends SessionRule, Schema extends z.ZodType>
  extends Omit<Route, 'session' | 'request' | 'handle'> {
  session: Rule;
  request?: RequestBody<Schema>;
  handle(exchange: RouteExchange<Rule, Schema>): Promise<void> | void;
}

/**
 * A route from its declaration (as better-auth's `createAuthEndpoint`): the handler gets the
 * session its rule promises, typed, and reads its body with the schema the document shows.
 */
export function defineRoute<Rule extends SessionRule, Schema extends z.ZodType = z.ZodNever>(
  spec: RouteSpec<Rule, Schema>,
): Route {
  const { handle, ...declaration } = spec;
  const schema = spec.request?.schema;
  return {
    ...declaration,
    handle: (request, reply, session) => {
      if (isGuarded(spec.session) && !session) throw new Error('a session route ran without its session');
      return handle({
        request,
        reply,
        session: session as SessionFor<Rule>,
        body: async () => {
          if (!schema || spec.request?.mediaType === 'application/x-www-form-urlencoded')
            throw new Error(`${spec.method} ${spec.path} declares no JSON body`);
          return parseBody(schema, await readJsonBody(request)) as z.output<Schema>;
        },
      });
    },
  };
}

/**
 * The one routing rule of every transport: a path names a route when it equals the route's path
 * byte for byte (case-sensitive, percent-escapes not decoded, doubled slashes not collapsed), a
 * `:parameter` standing for one non-empty segment. Frameworks' routers are laxer each in its own
 * way (Koa's ignores case, Fastify's decodes escapes), so a gateway rule on `/metrics` would not
 * cover `/METRICS` or `/%6Detrics`; both transports answer 404 for those.
 */
export function pathMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return false;
  return want.every((segment, index) =>
    segment.startsWith(':') ? have[index] !== '' : segment === have[index],
  );
}

/** The catch-all route answering `path` when the framework's router matched nothing, or null. */
export function catchAllRoute(routes: readonly Route[], path: string): Route | null {
  let found: Route | null = null;
  for (const route of routes) {
    const covers =
      route.catchAll === 'path'
        ? path === route.path
        : route.catchAll === 'subtree' && path.startsWith(route.path);
    // The most specific one: a subtree under another route's path is its own.
    if (covers && (!found || route.path.length > found.path.length)) found = route;
  }
  return found;
}

/**
 * The methods the API serves at `path` (a 405's `Allow`, RFC 9110): HEAD with GET, and OPTIONS,
 * as Koa's router announced them; empty when no route has this path (404).
 */
export function allowedMethods(routes: readonly Route[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (!pathMatches(route.path, path)) continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return methods.size === 0 ? [] : [...methods];
}
